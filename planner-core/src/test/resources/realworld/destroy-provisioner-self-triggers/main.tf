# Destroy-time provisioners can only use self, so everything they need goes into triggers.

variable "server_ip" {
  type    = string
  default = "203.0.113.10"
}

variable "ssh_user" {
  type    = string
  default = "deploy"
}

variable "ssh_key_file" {
  type    = string
  default = "keys/id_rsa"
}

resource "null_resource" "agent" {
  triggers = {
    host     = var.server_ip
    user     = var.ssh_user
    key_file = var.ssh_key_file
  }

  connection {
    type        = "ssh"
    host        = self.triggers.host
    user        = self.triggers.user
    private_key = file(pathexpand(self.triggers.key_file))
  }

  provisioner "remote-exec" {
    inline = [
      "curl -fsSL https://agent.example.com/install.sh | sudo bash",
      "sudo systemctl enable --now monitoring-agent",
    ]
  }

  provisioner "remote-exec" {
    when = destroy
    inline = [
      "sudo systemctl disable --now monitoring-agent || true",
      "sudo rm -rf /opt/monitoring-agent",
    ]
  }

  provisioner "local-exec" {
    when       = destroy
    command    = "ssh-keygen -R ${self.triggers.host}"
    on_failure = continue
  }
}
