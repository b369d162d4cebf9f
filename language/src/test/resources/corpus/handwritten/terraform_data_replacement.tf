variable "revision" {
  default = 1
}

resource "terraform_data" "replacement" {
  input = var.revision
}

# This resource has no convenient attribute which forces replacement,
# but can now be replaced by any change to the revision variable value.
resource "terraform_data" "example_database" {
  input = {
    name     = "db-${var.revision}"
    replicas = var.revision > 2 ? 3 : 1
  }

  lifecycle {
    replace_triggered_by = [terraform_data.replacement]
  }
}

output "database" {
  value = terraform_data.example_database.output
}
