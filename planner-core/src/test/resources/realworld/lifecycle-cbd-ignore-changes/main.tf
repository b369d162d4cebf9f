variable "release" {
  type    = string
  default = "v42"
}

resource "null_resource" "blue_green" {
  triggers = {
    release = var.release
  }

  lifecycle {
    create_before_destroy = true
  }

  provisioner "local-exec" {
    command = "./switch-traffic.sh ${var.release}"
  }
}

resource "null_resource" "first_boot" {
  triggers = {
    created_at = timestamp()
  }

  lifecycle {
    ignore_changes = [triggers]
  }

  provisioner "local-exec" {
    command = "echo first boot only"
  }
}

resource "terraform_data" "settings" {
  input = {
    release = var.release
    note    = "managed by ops"
  }

  lifecycle {
    ignore_changes        = [input]
    create_before_destroy = true
  }
}
