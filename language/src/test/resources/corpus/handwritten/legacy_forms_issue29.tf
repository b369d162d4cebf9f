# Forms from older configurations that Terraform still accepts (issue 29 items 2 and 7)
variable "nodes" {
  type    = list
  default = ["a", "b"]
}

variable "labels" {
  type = map
}

variable "untyped" {}

locals {
  first = var.nodes[0]
}

provider "null" {}

resource "null_resource" "base" {
  triggers = {
    first = local.first
  }
}

resource "null_resource" "deploy" {
  count      = length(var.nodes)
  depends_on = ["null_resource.base", var.untyped, local.first]

  triggers = {
    node = var.nodes[count.index]
  }

  lifecycle {
    ignore_changes = ["triggers"]
  }
}

data "local_file" "key" {
  filename = "${path.module}/id_rsa.pub"
}
