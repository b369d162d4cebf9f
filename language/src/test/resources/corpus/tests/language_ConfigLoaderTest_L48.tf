terraform { required_version = ">= 1.5" }
variable "rev" {
  type = string
  default = "abc"
  description = "revision"
  sensitive = true
}
locals {
  tag = "app-${var.rev}"
}
resource "terraform_data" "base" {
  input = "x"
}
resource "stateful_provisioning" "app" {
  count = 2
  state_key = var.rev
  tags = { Name = local.tag }
  depends_on = [terraform_data.base]
  connection {
    type = "ssh"
    host = "h"
  }
  provisioner "local-exec" {
    command = "echo create"
  }
  provisioner "local-exec" {
    when = destroy
    on_failure = continue
    command = "echo destroy"
  }
  provisioner "file" {
    content = "x"
    destination = "/tmp/x"
  }
  lifecycle {
    create_before_destroy = true
  }
}
output "id" {
  value = stateful_provisioning.app[0].id
  sensitive = true
}
