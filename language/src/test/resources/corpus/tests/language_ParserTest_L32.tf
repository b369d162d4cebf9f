a = 1
resource "stateful_provisioning" app {
  state_key = "x"
  provisioner "local-exec" { command = "echo 1" }
  provisioner "remote-exec" {
    inline = ["a"]
  }
  provisioner "local-exec" {
    command = "echo 3"
  }
}
