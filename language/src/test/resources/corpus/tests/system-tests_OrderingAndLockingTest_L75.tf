resource "stateful_provisioning" "one" {
  state_key = "a"
  provisioner "local-exec" {
    command = "%s"
  }
}
