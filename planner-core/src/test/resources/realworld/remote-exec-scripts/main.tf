variable "db_host" {
  type    = string
  default = "10.9.0.5"
}

resource "null_resource" "postgres" {
  triggers = {
    host         = var.db_host
    scripts_hash = md5(join("", [for f in ["01-install.sh", "02-configure.sh"] : filemd5("${path.module}/scripts/${f}")]))
  }

  connection {
    type        = "ssh"
    host        = self.triggers.host
    user        = "admin"
    private_key = file("${path.module}/scripts/admin.key")
  }

  provisioner "remote-exec" {
    scripts = [
      "${path.module}/scripts/01-install.sh",
      "${path.module}/scripts/02-configure.sh",
    ]
  }

  provisioner "remote-exec" {
    script = "${path.module}/scripts/healthcheck.sh"
  }

  provisioner "local-exec" {
    when    = destroy
    command = "echo 'postgres ${self.id} on ${self.triggers.host} is gone'"
  }
}

resource "null_resource" "app_db_user" {
  triggers = {
    db = null_resource.postgres.id
  }

  provisioner "local-exec" {
    command = "psql -h ${null_resource.postgres.triggers.host} -U postgres -c 'CREATE ROLE app LOGIN'"
  }
}
