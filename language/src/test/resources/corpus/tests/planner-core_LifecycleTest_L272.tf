resource "stateful_provisioning" "db" {
  count     = 2
  state_key = var.db_key
  tags      = { v = var.db_tag }
}
resource "stateful_provisioning" "whole" {
  state_key = "w"
  lifecycle {
    replace_triggered_by = [stateful_provisioning.db]
  }
}
resource "stateful_provisioning" "each" {
  count     = 2
  state_key = "e"
  lifecycle {
    replace_triggered_by = [stateful_provisioning.db[count.index]]
  }
}
resource "stateful_provisioning" "attr" {
  state_key = "a"
  lifecycle {
    replace_triggered_by = [stateful_provisioning.db[1].state_key]
  }
}
variable "db_key" {}
variable "db_tag" {}
