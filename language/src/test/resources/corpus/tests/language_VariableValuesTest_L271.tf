variable "pw" {
  sensitive = true
  validation {
    condition     = length(var.pw) >= 8
    error_message = "Password ${var.pw} is too short."
  }
}
