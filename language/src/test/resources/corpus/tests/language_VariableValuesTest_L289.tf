variable "n" { type = number }
variable "s" {}
variable "l" { type = list(string) }
variable "m" { type = map(number) }
