resource "stateful_provisioning" "db" {
  count     = 1
  state_key = "%s"
  lifecycle {
    prevent_destroy = true
  }
}
