# Seed 001 (the lifecycle meta-argument), first example, re-flowed onto lines.
resource "azurerm_resource_group" "example" {
  # ...

  lifecycle {
    create_before_destroy = true
  }
}
