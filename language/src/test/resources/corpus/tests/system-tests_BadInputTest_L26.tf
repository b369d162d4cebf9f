resource "stateful_provisioning" "app" {
  state_key = "v1"
}
