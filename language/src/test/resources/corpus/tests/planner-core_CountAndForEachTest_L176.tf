resource "stateful_provisioning" "web" {
  count     = 0
  state_key = "v1"
}
