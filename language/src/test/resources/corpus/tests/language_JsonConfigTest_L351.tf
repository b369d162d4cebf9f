resource "null_resource" "each" {
  for_each = toset(var.hosts)
  triggers = { host = each.key, v = each.value }
  lifecycle {
    ignore_changes = all
    prevent_destroy = true
  }
  provisioner "local-exec" {
    command = <<-EOT
      echo ${each.key}
      echo done
    EOT
    interpreter = ["/bin/sh", "-c"]
  }
}
