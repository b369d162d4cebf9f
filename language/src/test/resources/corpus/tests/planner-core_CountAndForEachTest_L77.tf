resource "stateful_provisioning" "web" {
  count     = 2
  state_key = "w${count.index}"
}
resource "stateful_provisioning" "lb" {
  state_key = join(",", stateful_provisioning.web[*].state_key)
  tags      = { first = stateful_provisioning.web[0].state_key, n = length(stateful_provisioning.web) }
}
