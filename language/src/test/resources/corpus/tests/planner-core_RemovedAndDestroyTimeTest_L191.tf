variable "who" {
  default = "x"
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  provisioner "local-exec" {
    when    = destroy
    command = "undeploy ${var.who} ${self.id}"
  }
}
removed {
  from = stateful_provisioning.old
  provisioner "local-exec" {
    when    = destroy
    command = "bye ${terraform.workspace}"
  }
}
