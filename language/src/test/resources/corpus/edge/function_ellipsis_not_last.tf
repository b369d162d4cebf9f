a = f(var.l..., 1)
