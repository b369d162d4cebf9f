resource "null_resource" "a" {}
b = 1