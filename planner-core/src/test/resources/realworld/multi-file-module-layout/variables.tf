variable "project" {
  description = "Project name used in resource names"
  type        = string
  default     = "acme"
}

variable "environment" {
  description = "Environment name"
  type        = string
  default     = "dev"
}

variable "servers" {
  description = "Servers keyed by name"
  type = map(object({
    ip   = string
    user = optional(string, "ubuntu")
  }))
  default = {
    app = { ip = "10.4.0.10" }
    db  = { ip = "10.4.0.20", user = "postgres" }
  }
}
