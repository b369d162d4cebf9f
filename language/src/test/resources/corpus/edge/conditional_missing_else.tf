a = var.c ? 1
