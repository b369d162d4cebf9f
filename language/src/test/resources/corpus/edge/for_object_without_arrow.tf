a = {for k, v in var.m : v}
