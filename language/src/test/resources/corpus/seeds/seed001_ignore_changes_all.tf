# Seed 001: the special keyword `all` instead of an attribute list.
resource "aws_instance" "example" {
  lifecycle {
    ignore_changes = all
  }
}
