resource "stateful_provisioning" "db" {
  state_key = "v2"
  lifecycle {
    create_before_destroy = true
  }
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  tags      = { db = stateful_provisioning.db.id }
}
