# Bootstrap a fleet of existing VMs over SSH. Re-runs the bootstrap on a host when the
# script changes or when the host list changes.

variable "hosts" {
  description = "IP addresses of the servers to provision"
  type        = list(string)
}

variable "ssh_user" {
  type    = string
  default = "ubuntu"
}

variable "private_key_path" {
  type    = string
  default = "keys/deploy_key"
}

resource "null_resource" "bootstrap" {
  count = length(var.hosts)

  triggers = {
    host        = var.hosts[count.index]
    user        = var.ssh_user
    script_hash = filemd5("${path.module}/scripts/bootstrap.sh")
  }

  connection {
    type        = "ssh"
    host        = var.hosts[count.index]
    user        = var.ssh_user
    private_key = file("${path.module}/${var.private_key_path}")
    timeout     = "2m"
  }

  provisioner "file" {
    source      = "${path.module}/scripts/bootstrap.sh"
    destination = "/tmp/bootstrap.sh"
  }

  provisioner "remote-exec" {
    inline = [
      "chmod +x /tmp/bootstrap.sh",
      "sudo /tmp/bootstrap.sh ${count.index}",
      "echo 'node-${count.index}' | sudo tee /etc/node-name",
    ]
  }
}

output "provisioned_hosts" {
  value = null_resource.bootstrap[*].triggers.host
}
