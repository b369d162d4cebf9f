a = "v=${var.c ? "a" : var.b}"
