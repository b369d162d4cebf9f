a = [for v in var.l v]
