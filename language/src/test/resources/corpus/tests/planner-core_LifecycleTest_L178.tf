resource "stateful_provisioning" "app" {
  state_key = "v2"
  tags      = { Name = "new", team = "blue" }
  lifecycle {
    ignore_changes = [tags]
  }
}
