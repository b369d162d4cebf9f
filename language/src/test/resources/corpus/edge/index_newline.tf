a = var.l[
  0
]
