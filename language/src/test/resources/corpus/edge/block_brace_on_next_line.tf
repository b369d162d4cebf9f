resource "a" "b"
{
}
