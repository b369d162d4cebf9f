a = -var.x
b = !var.y
c = !!true
d = - -1
e = -(-1)
f = !true
g = -1 * -2
h = 1 - -1
