resource "stateful_provisioning" "a" {
  state_key = stateful_provisioning.b.id
}
resource "stateful_provisioning" "b" {
  state_key = "x"
  depends_on = [stateful_provisioning.a]
}
