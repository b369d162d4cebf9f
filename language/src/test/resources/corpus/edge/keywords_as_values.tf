a = true
b = false
c = null
d = True
e = NULL
