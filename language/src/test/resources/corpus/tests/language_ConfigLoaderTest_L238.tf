resource "null_resource" "a" {
  provisioner "local-exec" {
    command = "x"
    when = later
    on_failure = "ignore"
  }
}
