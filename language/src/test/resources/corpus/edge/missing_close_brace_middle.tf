resource "a" "b" {
  x = 1
resource "a" "c" {
}
