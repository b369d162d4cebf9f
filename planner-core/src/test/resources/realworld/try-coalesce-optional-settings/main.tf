variable "settings" {
  type    = any
  default = {
    app = {
      port = 9090
    }
  }
}

variable "custom_domain" {
  type    = string
  default = ""
}

locals {
  port         = try(var.settings.app.port, 8080)
  log_level    = try(var.settings.app.log_level, "info")
  domain       = coalesce(var.custom_domain, "app.local")
  has_proxy    = can(var.settings.proxy.url)
  health_paths = compact(["/healthz", try(var.settings.app.extra_health, ""), "/ready"])
}

resource "null_resource" "configure" {
  triggers = {
    port      = local.port
    log_level = local.log_level
    domain    = local.domain
  }

  provisioner "local-exec" {
    command = "echo 'port=${local.port} level=${local.log_level} proxy=${local.has_proxy}' > app.env"
  }
}

resource "null_resource" "health" {
  count = length(local.health_paths)

  triggers = {
    path = local.health_paths[count.index]
  }

  provisioner "local-exec" {
    command = "curl -fsS http://${local.domain}:${local.port}${local.health_paths[count.index]}"
  }
}
