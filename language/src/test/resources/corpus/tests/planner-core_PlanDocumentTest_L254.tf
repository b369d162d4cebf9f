resource "stateful_provisioning" "a" {
  state_key = local.b
}
locals {
  b = stateful_provisioning.a.id
  c = local.nope
}
resource "stateful_provisioning" "x" {
  state_key = var.missing
  tags      = { g = stateful_provisioning.ghost.id }
}
