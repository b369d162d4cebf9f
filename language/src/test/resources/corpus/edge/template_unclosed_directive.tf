a = "%{ if var.c }x"
