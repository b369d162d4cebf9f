resource "stateful_provisioning" "db" {
  state_key = "v2"
  lifecycle {
    create_before_destroy = false
  }
}
resource "stateful_provisioning" "app" {
  state_key = stateful_provisioning.db.id
  lifecycle {
    create_before_destroy = true
  }
}
