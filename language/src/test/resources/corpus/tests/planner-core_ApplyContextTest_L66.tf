resource "stateful_provisioning" "web" {
  count     = 2
  state_key = "w${count.index}"
}
locals {
  ids = join(",", stateful_provisioning.web[*].id)
}
resource "stateful_provisioning" "lb" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "register ${local.ids}"
  }
}
