moved {
  from = null_resource.old
  to   = null_resource.new
}

removed {
  from = null_resource.legacy

  lifecycle {
    destroy = false
  }
}

import {
  to = terraform_data.imported
  id = "existing-id"
}

resource "null_resource" "new" {}

resource "terraform_data" "imported" {
  input = "x"
}
