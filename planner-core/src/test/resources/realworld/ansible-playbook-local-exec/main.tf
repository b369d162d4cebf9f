variable "web_hosts" {
  type    = list(string)
  default = ["192.0.2.21", "192.0.2.22"]
}

variable "ansible_user" {
  type    = string
  default = "ubuntu"
}

locals {
  inventory = templatefile("${path.module}/ansible/inventory.tpl", {
    hosts = var.web_hosts
    user  = var.ansible_user
  })
}

resource "null_resource" "wait_for_ssh" {
  count = length(var.web_hosts)

  connection {
    type        = "ssh"
    host        = var.web_hosts[count.index]
    user        = var.ansible_user
    private_key = file("${path.module}/ansible/id_rsa")
  }

  provisioner "remote-exec" {
    inline = ["echo 'SSH is up on ${var.web_hosts[count.index]}'"]
  }
}

resource "null_resource" "ansible" {
  depends_on = [null_resource.wait_for_ssh]

  triggers = {
    playbook_sha  = filesha256("${path.module}/ansible/site.yml")
    inventory_sha = sha256(local.inventory)
  }

  provisioner "local-exec" {
    working_dir = "${path.module}/ansible"
    command     = "echo '${local.inventory}' > hosts.ini && ansible-playbook -i hosts.ini site.yml"

    environment = {
      ANSIBLE_HOST_KEY_CHECKING = "False"
      ANSIBLE_PRIVATE_KEY_FILE  = "id_rsa"
    }
  }
}
