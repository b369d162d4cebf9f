resource "stateful_provisioning" "site" {
  for_each  = { blue = "b1", green = "g1" }
  state_key = "${each.key}=${each.value}"
}
