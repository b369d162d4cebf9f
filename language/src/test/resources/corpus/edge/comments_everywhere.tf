# hash
// slash
/* block */ a = 1 # trailing
b = [ # in tuple
  1, // after
  /* inline */ 2,
]
c = f(1, /* c */ 2)
resource "null_resource" "x" { # after brace
  /*
   multi
  */
  t = 1 // end
} # after block
/* unterminated at end? no */
