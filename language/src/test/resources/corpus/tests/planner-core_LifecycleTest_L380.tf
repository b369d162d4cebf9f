resource "stateful_provisioning" "app" {
  count     = 1
  state_key = "%s"
  lifecycle {
    destroy = false
  }
}
