variable "enable_backups" {
  type    = bool
  default = false
}

variable "enable_monitoring" {
  type    = bool
  default = true
}

variable "backup_hosts" {
  type    = list(string)
  default = ["10.3.0.4"]
}

resource "null_resource" "backup_cron" {
  count = var.enable_backups ? length(var.backup_hosts) : 0

  connection {
    host = var.backup_hosts[count.index]
    user = "root"
  }

  provisioner "remote-exec" {
    inline = ["echo '0 3 * * * /usr/local/bin/backup.sh' | crontab -"]
  }
}

resource "null_resource" "monitoring" {
  count = var.enable_monitoring ? 1 : 0

  provisioner "local-exec" {
    command = "echo enabling monitoring"
  }
}

output "monitoring_id" {
  value = one(null_resource.monitoring[*].id)
}

output "backup_ids" {
  value = null_resource.backup_cron[*].id
}
