resource "stateful_provisioning" "db" {
  state_key = "v1"
  lifecycle {
    prevent_destroy = true
  }
}
