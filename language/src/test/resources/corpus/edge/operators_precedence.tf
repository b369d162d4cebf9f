a = 1 + 2 * 3 - 4 / 5 % 6
b = var.a || var.b && !var.c
c = 1 < 2 == 3 >= 4
d = (1 + 2) * 3
e = var.a == "x" ? 1 + 2 : var.b != null && var.c
f = 1<2
g = var.a>=var.b
h = var.x ? var.y ? 1 : 2 : 3
