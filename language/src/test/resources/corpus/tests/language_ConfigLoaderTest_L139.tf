resource "stateful_provisioning" "app" {
  stat_key = "x"
}
