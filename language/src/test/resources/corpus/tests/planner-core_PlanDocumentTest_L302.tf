resource "stateful_provisioning" "web" {
  count     = 1
  state_key = "v1"
}
