resource null_resource bare {}
resource "null_resource" "quoted" {}
resource "with \"escape\"" "x" {}
locals {}
empty {
}
three "a" "b" "c" {}
zero {}
