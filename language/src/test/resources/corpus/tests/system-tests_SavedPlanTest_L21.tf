variable "rev" {
}
variable "password" {
  sensitive = true
}
resource "stateful_provisioning" "app" {
  state_key = var.rev
  provisioner "local-exec" {
    command = "echo applied ${var.rev} >> %s"
  }
}
