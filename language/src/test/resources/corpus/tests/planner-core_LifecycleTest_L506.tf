resource "stateful_provisioning" "app" {
  state_key = "v1"
  lifecycle {
    postcondition {
      condition     = self.state_key != "v1"
      error_message = "%s must not be v1."
    }
  }
}
