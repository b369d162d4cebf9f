resource "stateful_provisioning" "db" {
  state_key = "v1"
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  depends_on = [stateful_provisioning.db]
}
resource "stateful_provisioning" "smoke" {
  state_key = "${stateful_provisioning.app.id}"
}
