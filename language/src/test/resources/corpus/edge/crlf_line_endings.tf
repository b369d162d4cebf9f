resource "null_resource" "a" {
  triggers = {
    x = "1"
  }
}
b = <<EOT
line
EOT
