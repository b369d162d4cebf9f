a = f()
b = f(1)
c = f(1, 2,)
d = f(var.l...)
e = f(1, var.l...)
f = f(
  1,
  2
)
g = f(g(h(1)))
h = f((1))
i = upper("x")
