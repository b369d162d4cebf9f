locals {
  scheme = var.enable_tls ? "https" : "http"
  url    = "${local.scheme}://app.${var.environment}.example.com:${var.http_port}"
}

resource "null_resource" "replica" {
  count = var.replicas

  triggers = {
    port        = var.http_port
    tls         = var.enable_tls
    environment = var.environment
    labels      = join(",", [for k, v in var.labels : "${k}=${v}"])
  }

  provisioner "local-exec" {
    command = "echo starting replica ${count.index + 1}/${var.replicas} at ${local.url}"
    environment = {
      ADMIN_EMAIL = var.admin_email
      TLS_ENABLED = tostring(var.enable_tls)
    }
  }
}

output "url" {
  value = local.url
}
