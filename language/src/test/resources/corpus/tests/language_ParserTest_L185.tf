o = {
  a = 1
  "b" : 2, c = 3
  (var.k) = 4
}
one = { x = 1, y = 2 }
