a = (
  var.c
  ? "yes"
  : "no"
)
