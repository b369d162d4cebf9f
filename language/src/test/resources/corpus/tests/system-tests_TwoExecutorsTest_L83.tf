resource "stateful_provisioning" "step%d" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "echo step %d"
  }
}
