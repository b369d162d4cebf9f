ünïcode = "ü"
resource "null_resource" "日本" {
  名前 = "値"
}
