resource "azurerm_resource_group" "example" { # ... lifecycle { create_before_destroy = true }}
