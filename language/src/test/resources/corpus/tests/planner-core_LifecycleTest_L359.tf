resource "stateful_provisioning" "app" {
  state_key = "v1"
  lifecycle {
    enabled = false
  }
}
resource "stateful_provisioning" "new" {
  state_key = "v1"
  lifecycle {
    enabled = false
  }
}
