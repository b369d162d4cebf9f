resource "stateful_provisioning" "app" {
  state_key = "x"
  provisioner "chef" {}
  provisioner "local-exec" {
    cmd = "x"
  }
}
