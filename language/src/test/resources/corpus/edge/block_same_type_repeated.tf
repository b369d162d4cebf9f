resource "null_resource" "a" {
  provisioner "local-exec" { command = "1" }
  provisioner "file" {
    source = "a"
  }
  provisioner "local-exec" {
    command = "2"
  }
  provisioner "local-exec" {
    command = "3"
    when    = destroy
  }
}
locals { a = 1 }
locals { b = 2 }
locals {
  c = 3
}
