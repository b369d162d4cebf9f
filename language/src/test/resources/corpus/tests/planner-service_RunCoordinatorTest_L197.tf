resource "stateful_provisioning" "db" {
  state_key = "v1"
  lifecycle {
    create_before_destroy = true
  }
}
