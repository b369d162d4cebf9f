variable "rev" {
}

resource "stateful_provisioning" "app" {
  state_key = "${var.rev}"
  provisioner "remote-exec" {
    inline = [
      "my-favorite-deployment-tool --revision=${var.rev}"
    ]
    connection {
      user = "deployment-user"
      host = "deployment-admin-host.example.com"
      key_file = "deployment_private_key"
    }
  }
}
