variable "image_id" {
  type = string
  validation {
    condition     = length(var.image_id) > 4 && substr(var.image_id, 0, 4) == "ami-"
    error_message = "The image_id value must be a valid AMI id, starting with \"ami-\"."
  }
  validation {
    condition     = can(regex("^[a-z0-9-]+$", var.image_id))
    error_message = "Got ${var.image_id}: only lower-case letters, digits and dashes."
  }
}
variable "other" {
  default = 1
  validation {
    condition     = var.other > local.min
    error_message = "too small"
  }
}
