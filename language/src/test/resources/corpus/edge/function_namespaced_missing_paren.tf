a = x::y
