a = { if = 1, in = 2, null = 3, true = 4 }
