locals {
  servers = {
    web1 = { ip = "10.10.0.11", role = "web" }
    web2 = { ip = "10.10.0.12", role = "web" }
    db1  = { ip = "10.10.0.21", role = "db" }
  }

  web_servers = { for name, s in local.servers : name => s if s.role == "web" }
  db_ips      = [for name, s in local.servers : s.ip if s.role == "db"]
  inventory   = join("\n", [for name, s in local.servers : "${name} ansible_host=${s.ip}"])
  roles       = distinct([for s in values(local.servers) : s.role])
}

resource "null_resource" "web" {
  for_each = local.web_servers

  triggers = {
    ip    = each.value.ip
    db_ip = local.db_ips[0]
  }

  connection {
    type     = "ssh"
    host     = each.value.ip
    user     = "ubuntu"
    password = "ubuntu"
  }

  provisioner "remote-exec" {
    inline = [
      "echo 'DB_HOST=${local.db_ips[0]}' | sudo tee /etc/app.env",
      "sudo hostnamectl set-hostname ${each.key}",
    ]
  }
}

resource "null_resource" "inventory" {
  triggers = {
    inventory = local.inventory
  }

  provisioner "local-exec" {
    command = "echo '${local.inventory}' > inventory.ini"
  }
}

output "web_hosts" {
  value = { for name, r in null_resource.web : name => r.triggers.ip }
}

output "roles" {
  value = local.roles
}
