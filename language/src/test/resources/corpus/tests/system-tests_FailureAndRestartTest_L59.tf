resource "stateful_provisioning" "kept" {
  state_key = "before-restart"
}
