a = f(
  1,
  var.l...,
)
