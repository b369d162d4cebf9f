variable "port" {
  type    = number
  default = "8080"
}
variable "zones" {
  type = set(string)
}
variable "token" {
  type      = string
  sensitive = true
}
variable "untyped" {
  default = { a = 1 }
}
