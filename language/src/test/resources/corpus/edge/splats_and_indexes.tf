a = var.l[*].id
b = var.l.*.id
c = var.l[*]
d = var.l.*
e = var.l[*].a.b
f = var.l[0][*]
g = var.m["k"].x[0]
h = var.l[var.i + 1]
i = var.legacy.0.id
k = f(x).y[0]
l = [1, 2][0]
m = {a = 1}.a
n = "abc"[0]
o = var.l[*][0]
p = var.l.*.a[0]
