variable "host" {
  type    = string
  default = "192.0.2.15"
}

variable "admin_user" {
  type    = string
  default = "administrator"
}

variable "admin_password" {
  type        = string
  sensitive   = true
  description = "SSH password of the admin user"
}

variable "db_root_password" {
  type      = string
  sensitive = true
}

resource "null_resource" "mysql" {
  triggers = {
    host = var.host
  }

  connection {
    type     = "ssh"
    host     = var.host
    user     = var.admin_user
    password = var.admin_password
    port     = 22
    timeout  = "5m"
  }

  provisioner "remote-exec" {
    inline = [
      "echo '${var.admin_password}' | sudo -S apt-get install -y mysql-server",
      "sudo mysql -e \"ALTER USER 'root'@'localhost' IDENTIFIED BY '${var.db_root_password}';\"",
    ]
  }
}

output "mysql_host" {
  value = null_resource.mysql.triggers.host
}

output "connection_string" {
  value     = "mysql://root:${var.db_root_password}@${var.host}:3306/"
  sensitive = true
}
