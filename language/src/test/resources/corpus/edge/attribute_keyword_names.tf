for = 1
in = 2
if = 3
null = 4
true = 5
resource = 6
