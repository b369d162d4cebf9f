variable "services" {
  description = "systemd units to install on the app server"
  type        = list(string)
  default     = ["api", "worker", "scheduler"]
}

variable "app_server" {
  type    = string
  default = "192.0.2.50"
}

resource "null_resource" "service" {
  for_each = toset(var.services)

  triggers = {
    unit_hash = filemd5("${path.module}/units/${each.key}.service")
    name      = each.key
    host      = var.app_server
  }

  connection {
    type        = "ssh"
    host        = self.triggers.host
    user        = "ops"
    private_key = file("${path.module}/ops_key")
  }

  provisioner "file" {
    source      = "${path.module}/units/${each.value}.service"
    destination = "/tmp/${each.value}.service"
  }

  provisioner "remote-exec" {
    inline = [
      "sudo mv /tmp/${each.key}.service /etc/systemd/system/${each.key}.service",
      "sudo systemctl daemon-reload",
      "sudo systemctl enable ${each.key}",
      "sudo systemctl restart ${each.key}",
    ]
  }

  provisioner "remote-exec" {
    when = destroy
    inline = [
      "sudo systemctl disable --now ${each.key} || true",
      "sudo rm -f /etc/systemd/system/${self.triggers.name}.service",
    ]
  }
}

output "service_ids" {
  value = { for name, s in null_resource.service : name => s.id }
}
