a = 1 +
b = [1 2]
block {
  c = )
  d = 4
}
e = 5
