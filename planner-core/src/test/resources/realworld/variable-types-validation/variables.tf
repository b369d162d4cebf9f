variable "environment" {
  type        = string
  description = "Deployment environment"
  default     = "staging"

  validation {
    condition     = contains(["dev", "staging", "prod"], var.environment)
    error_message = "Environment must be one of dev, staging or prod."
  }
}

variable "http_port" {
  type    = number
  default = 8080

  validation {
    condition     = var.http_port > 1024 && var.http_port < 65536
    error_message = "The HTTP port must be an unprivileged port (1025-65535)."
  }
}

variable "enable_tls" {
  type    = bool
  default = true
}

variable "replicas" {
  type    = number
  default = 2
}

variable "labels" {
  type = map(string)
  default = {
    owner = "platform"
    tier  = "backend"
  }
}

variable "admin_email" {
  type    = string
  default = "ops@example.com"

  validation {
    condition     = can(regex("^[^@]+@[^@]+$", var.admin_email))
    error_message = "admin_email must be an email address."
  }
}
