resource "stateful_provisioning" "db" {
  state_key = "v2"
  lifecycle {
    create_before_destroy = false
  }
}
resource "stateful_provisioning" "cache" {
  state_key = "v2"
}
locals {
  db_id = stateful_provisioning.db.id
}
resource "stateful_provisioning" "app" {
  state_key  = "v2-${local.db_id}"
  depends_on = [stateful_provisioning.cache]
  lifecycle {
    create_before_destroy = true
  }
}
resource "stateful_provisioning" "other" {
  state_key = "v2"
}
