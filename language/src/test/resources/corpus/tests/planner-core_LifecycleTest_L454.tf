resource "stateful_provisioning" "web" {
  count     = 3
  state_key = "v1"
}
