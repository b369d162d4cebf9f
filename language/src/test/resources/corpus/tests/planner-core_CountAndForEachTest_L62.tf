resource "stateful_provisioning" "site" {
  for_each  = toset(["a", "b", "a"])
  state_key = each.value
}
