resource "stateful_provisioning" "app" {
  state_key = "x"
  provisioner "remote-exec" {
    inline = ["x"]
    connection {
      type = "winrm"
    }
  }
}
