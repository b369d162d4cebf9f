variable "db_host" {
  type    = string
  default = "db.internal.example.com"
}

variable "db_password" {
  type      = string
  sensitive = true
}

variable "migrations_dir" {
  type    = string
  default = "migrations"
}

resource "null_resource" "db_migrations" {
  triggers = {
    migrations_hash = sha256(file("${path.module}/scripts/migrate.sh"))
    db_host         = var.db_host
  }

  provisioner "local-exec" {
    interpreter = ["/bin/bash", "-c"]
    working_dir = "${path.module}/scripts"
    command     = "./migrate.sh --dir ${var.migrations_dir}"

    environment = {
      PGHOST     = var.db_host
      PGPORT     = "5432"
      PGUSER     = "migrator"
      PGPASSWORD = var.db_password
    }
  }
}

resource "null_resource" "notify" {
  depends_on = [null_resource.db_migrations]

  provisioner "local-exec" {
    interpreter = ["python3", "-c"]
    command     = "print('migrations applied to ${var.db_host}')"
  }
}
