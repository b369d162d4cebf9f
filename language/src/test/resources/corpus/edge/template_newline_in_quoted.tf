a = "one
two"
