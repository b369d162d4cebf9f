variable "n" {}
resource "stateful_provisioning" "web" {
  count     = var.n
  state_key = "v${count.index}"
}
