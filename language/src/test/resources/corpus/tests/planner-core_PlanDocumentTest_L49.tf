variable "password" {
  default   = "hunter2"
  sensitive = true
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
}
output "key" {
  value = stateful_provisioning.app.state_key
}
output "id" {
  value = stateful_provisioning.app.id
}
output "secret" {
  value     = "pw=${var.password}"
  sensitive = true
}
