variable "cbd" {
  default = true
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  lifecycle {
    create_before_destroy = var.cbd
    prevent_destroy       = !false
  }
}
