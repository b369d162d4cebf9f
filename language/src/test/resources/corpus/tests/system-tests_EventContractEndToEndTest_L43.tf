variable "secret" {
  default = "s3cr3t-value"
  sensitive = true
}
resource "stateful_provisioning" "a" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "echo using ${var.secret}"
  }
}
resource "stateful_provisioning" "b" {
  state_key = stateful_provisioning.a.id
}
