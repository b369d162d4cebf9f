resource "stateful_provisioning" "app" {
  state_key = "v1"
  depends_on = [stateful_provisioning.db]
  provisioner "local-exec" {
    command = "%s"
  }
}
resource "stateful_provisioning" "db" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "%s"
  }
}
