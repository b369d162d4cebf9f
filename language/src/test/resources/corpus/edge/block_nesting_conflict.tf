a "x" {}
a "x" "y" {}
