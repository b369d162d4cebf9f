variable "password" {
  default = "hunter2"
  sensitive = true
}
resource "stateful_provisioning" "db" {
  state_key = "v1"
}
resource "stateful_provisioning" "app" {
  state_key = "v1"
  provisioner "local-exec" {
    command = "deploy --db=${stateful_provisioning.db.id} --pw=${var.password}"
    environment = { REV = "v1" }
    working_dir = "/tmp"
  }
  provisioner "local-exec" {
    when = destroy
    command = "echo bye ${self.id}"
  }
}
