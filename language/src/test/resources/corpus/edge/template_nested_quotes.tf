a = "${"${"x"}-${var.y}"}"
b = "pre ${ "in" } post"
c = "${ x /* c */ }"
