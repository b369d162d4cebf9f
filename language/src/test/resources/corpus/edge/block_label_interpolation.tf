resource "${var.t}" "x" {}
