variable "token" {
  default   = "s3cr3t"
  sensitive = true
}
resource "stateful_provisioning" "app" {
  state_key = "v1-${var.token}"
  tags      = { team = "blue" }
}
