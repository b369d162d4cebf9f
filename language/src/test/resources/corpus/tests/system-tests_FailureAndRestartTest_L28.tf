resource "stateful_provisioning" "app" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "echo attempt >> %s; echo 'migration blew up' >&2; exit 3"
  }
}
