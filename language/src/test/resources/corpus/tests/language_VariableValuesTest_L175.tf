variable "port" {
  type = number
}
variable "rev" {
}
variable "strict" {
  type     = string
  nullable = false
}
variable "fallback" {
  type     = string
  nullable = false
  default  = "d"
}
