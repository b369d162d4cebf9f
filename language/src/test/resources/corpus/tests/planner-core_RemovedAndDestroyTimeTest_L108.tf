resource "stateful_provisioning" "app" {
  state_key = "v1"
}
removed {
  from = stateful_provisioning.app
}
