resource "stateful_provisioning" "one" {
  state_key = "b"
  provisioner "local-exec" {
    command = "%s"
  }
}
