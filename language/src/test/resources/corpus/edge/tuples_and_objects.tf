a = []
b = {}
c = [1, "two", true, null, [3], {x = 4}]
d = [
  1,
  2,
]
e = {
  a = 1
  b = 2,
  "c" = 3
  "d": 4, e = 5
  (var.k) = 6
  7 = 8
  x.y = 9
}
f = { a = 1, b = 2, }
g = {"${var.k}" = 1}
