resource "stateful_provisioning" "site" {
  for_each  = { a = 1, b = 2 }
  state_key = "s-${each.key}"
}
resource "stateful_provisioning" "all" {
  state_key = join(",", [for k, s in stateful_provisioning.site : "${k}:${s.state_key}"])
}
