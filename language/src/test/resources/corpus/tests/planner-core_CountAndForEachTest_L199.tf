resource "stateful_provisioning" "db" {
  state_key = "x"
}
resource "stateful_provisioning" "web" {
  count     = length(stateful_provisioning.db.id)
  state_key = "v1"
}
resource "stateful_provisioning" "site" {
  for_each  = { (stateful_provisioning.db.id) = 1 }
  state_key = "v1"
}
