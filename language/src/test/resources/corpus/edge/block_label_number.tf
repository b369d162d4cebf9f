resource 1 "x" {}
