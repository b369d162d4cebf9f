resource "stateful_provisioning" "app" {
  state_key = "v1"
  lifecycle {
    ignore_changes = [count, colour]
  }
}
