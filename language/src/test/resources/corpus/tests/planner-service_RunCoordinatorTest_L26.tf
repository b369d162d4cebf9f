resource "stateful_provisioning" "db" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "migrate"
  }
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  depends_on = [stateful_provisioning.db]
}
