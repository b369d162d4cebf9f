# Seed 002: lifecycle `enabled` and `destroy = false` (OpenTofu), prevent_destroy.
resource "aws_instance" "example" {
  count = var.instance_count

  lifecycle {
    enabled         = var.enable_instance
    destroy         = false
    prevent_destroy = true
  }
}
