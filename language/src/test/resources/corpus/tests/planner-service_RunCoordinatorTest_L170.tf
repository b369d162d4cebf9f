resource "stateful_provisioning" "db" {
  state_key = "v1"
  lifecycle {
    postcondition {
      condition     = self.id == "never"
      error_message = "The database id must be never."
    }
  }
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  depends_on = [stateful_provisioning.db]
}
