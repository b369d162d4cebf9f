resource "stateful_provisioning" "web" {
  state_key = "v${count.index}"
}
