variable "packages" {
  type    = list(string)
  default = ["git", "htop", "unzip"]
}

variable "hostname" {
  type    = string
  default = "builder-01"
}

variable "host_ip" {
  type    = string
  default = "192.0.2.99"
}

locals {
  setup_script = <<-EOT
    #!/bin/bash
    set -euo pipefail
    hostnamectl set-hostname ${var.hostname}
    apt-get update -y
    %{ for p in var.packages ~}
    apt-get install -y ${p}
    %{ endfor ~}
    echo "done" > /var/log/setup.done
  EOT
}

resource "null_resource" "setup" {
  triggers = {
    script = sha256(local.setup_script)
  }

  connection {
    type        = "ssh"
    host        = var.host_ip
    user        = "root"
    private_key = file("${path.module}/id_ed25519")
  }

  provisioner "file" {
    content     = local.setup_script
    destination = "/root/setup.sh"
  }

  provisioner "remote-exec" {
    inline = [
      "bash /root/setup.sh",
    ]
  }

  provisioner "local-exec" {
    command = <<EOT
echo "Host ${var.hostname}" >> ~/.ssh/config
echo "  HostName ${var.host_ip}" >> ~/.ssh/config
EOT
  }
}
