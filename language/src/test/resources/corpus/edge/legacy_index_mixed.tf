a = var.legacy.0[1]
b = var.l[0].1
