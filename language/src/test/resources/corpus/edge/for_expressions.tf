a = [for v in var.l : upper(v)]
b = [for i, v in var.l : "${i}=${v}" if i > 0]
c = {for k, v in var.m : k => v}
d = {for k, v in var.m : v => k...}
e = {for k, v in var.m : upper(k) => v... if v != null}
f = [
  for v in var.l :
  v
  if v != ""
]
g = {
  for k, v in var.m :
  k => v
}
h = [for v in [for w in var.l : w] : v]
