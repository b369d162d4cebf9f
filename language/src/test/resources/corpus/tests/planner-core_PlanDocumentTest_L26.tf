locals {
  full = "${local.base}-${terraform.workspace}"
  base = "r${stateful_provisioning.db.state_key}"
}
resource "stateful_provisioning" "db" {
  state_key = "7"
}
resource "stateful_provisioning" "app" {
  state_key = local.full
}
