resource "stateful_provisioning" "db" {
  count     = 1
  state_key = "v1"
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  tags      = { db = stateful_provisioning.db[0].id }
}
