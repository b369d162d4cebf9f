variable "env" {
  default = "prod"
}
resource "stateful_provisioning" "app" {
  count     = 1
  state_key = "v1"
  lifecycle {
    precondition {
      condition     = var.env == "staging"
      error_message = "Only staging may be deployed, not ${var.env}."
    }
  }
}
