resource "stateful_provisioning" "web" {
  count     = 2
  state_key = "v1"
}
resource "stateful_provisioning" "site" {
  for_each  = toset(["a"])
  state_key = "v2"
}
