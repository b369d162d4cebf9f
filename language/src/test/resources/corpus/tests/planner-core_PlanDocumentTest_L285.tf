resource "stateful_provisioning" "a" {
  state_key = "1"
}
resource "stateful_provisioning" "a" {
  state_key = "2"
}
