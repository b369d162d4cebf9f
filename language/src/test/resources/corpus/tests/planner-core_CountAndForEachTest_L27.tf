resource "stateful_provisioning" "web" {
  count     = 2
  state_key = "v1-${count.index}"
}
