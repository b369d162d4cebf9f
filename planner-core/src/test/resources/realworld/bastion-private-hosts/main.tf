variable "bastion_host" {
  type    = string
  default = "bastion.example.com"
}

variable "private_ips" {
  type    = list(string)
  default = ["10.0.10.5", "10.0.10.6"]
}

variable "ssh_key_path" {
  type    = string
  default = "id_ed25519"
}

resource "null_resource" "app" {
  count = length(var.private_ips)

  triggers = {
    ip       = var.private_ips[count.index]
    bastion  = var.bastion_host
    key_path = "${path.module}/${var.ssh_key_path}"
  }

  provisioner "remote-exec" {
    connection {
      type                = "ssh"
      host                = var.private_ips[count.index]
      user                = "ubuntu"
      private_key         = file("${path.module}/${var.ssh_key_path}")
      bastion_host        = var.bastion_host
      bastion_user        = "jump"
      bastion_private_key = file("${path.module}/${var.ssh_key_path}")
    }

    inline = [
      "sudo apt-get update",
      "sudo apt-get install -y openjdk-17-jre-headless",
    ]
  }

  provisioner "remote-exec" {
    when = destroy

    connection {
      type                = "ssh"
      host                = self.triggers.ip
      user                = "ubuntu"
      private_key         = file(self.triggers.key_path)
      bastion_host        = self.triggers.bastion
      bastion_user        = "jump"
      bastion_private_key = file(self.triggers.key_path)
    }

    inline = ["sudo systemctl stop app || true"]
  }
}
