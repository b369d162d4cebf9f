resource "null_resource" "a" {
  depends_on = [var.x, null_resource.b.id, null_resource.missing]
}
resource "null_resource" "b" {
  depends_on = null_resource.a
}
