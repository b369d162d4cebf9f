variable "subnet_cidr" {
  type    = string
  default = "10.50.8.0/24"
}

variable "node_count" {
  type    = number
  default = 3
}

locals {
  env       = terraform.workspace == "default" ? "dev" : terraform.workspace
  node_ips  = [for i in range(var.node_count) : cidrhost(var.subnet_cidr, 10 + i)]
  gateway   = cidrhost(var.subnet_cidr, 1)
  netmask   = cidrnetmask(var.subnet_cidr)
}

resource "null_resource" "netconfig" {
  count = var.node_count

  triggers = {
    ip      = local.node_ips[count.index]
    gateway = local.gateway
    name    = "${local.env}-node-${count.index}"
  }

  connection {
    type     = "ssh"
    host     = local.node_ips[count.index]
    user     = "netadmin"
    password = "changeme"
  }

  provisioner "remote-exec" {
    inline = [
      "sudo hostnamectl set-hostname ${local.env}-node-${count.index}",
      "sudo ip route replace default via ${local.gateway}",
      "echo 'netmask ${local.netmask}' | sudo tee -a /etc/network/interfaces.d/eth0",
    ]
  }
}

output "node_ips" {
  value = local.node_ips
}
