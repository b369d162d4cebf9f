resource "stateful_provisioning" "app" {
  state_key = "r1"
  tags = { team = "blue" }
}
