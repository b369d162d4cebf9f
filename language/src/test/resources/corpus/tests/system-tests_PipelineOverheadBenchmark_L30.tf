resource "stateful_provisioning" "r%d" {
  state_key = var.round
  provisioner "local-exec" {
    command = "true"
  }
}
