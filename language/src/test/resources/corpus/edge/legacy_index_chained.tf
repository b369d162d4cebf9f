a = var.legacy.0.1
