terraform { required_version = ">= 1.5" }
variable "rev" {
  type        = string
  default     = "abc"
  description = "revision"
  sensitive   = true
  nullable    = false
  validation {
    condition     = length(var.rev) > 2
    error_message = "too short"
  }
}
variable "hosts" {
  type    = list(object({ name = string, port = optional(number, 22) }))
  default = []
}
locals {
  tag   = "app-${var.rev}"
  n     = 1 + 2 * 3
  flags = { a = true, b = null, c = [1, "two", 3.5] }
  cond  = var.n > 1 ? "many" : "one"
  up    = upper(var.rev)
  list  = [for h in var.hosts : "${h}:22"]
  tmpl  = "%{ for h in var.hosts }${h},%{ endfor }"
}
resource "terraform_data" "base" {
  input = "x"
  triggers_replace = [var.rev]
}
resource "stateful_provisioning" "app" {
  count      = var.n
  state_key  = "${var.rev}-${count.index}"
  triggers   = { rev = var.rev, base = terraform_data.base.id }
  tags       = { Name = local.tag }
  depends_on = [terraform_data.base]
  connection {
    type = "ssh"
    host = "h"
    port = 2222
  }
  provisioner "local-exec" {
    command = "echo create ${self.state_key}"
    environment = { A = "1" }
  }
  provisioner "file" {
    content     = "x"
    destination = "/tmp/x"
  }
  provisioner "local-exec" {
    when       = destroy
    on_failure = continue
    command    = "echo destroy"
  }
  provisioner "remote-exec" {
    inline = ["a", "b"]
    connection {
      host = "other"
    }
  }
  lifecycle {
    create_before_destroy = true
    ignore_changes        = [tags["Name"], triggers]
    replace_triggered_by  = [terraform_data.base.output]
    precondition {
      condition     = var.n > 0
      error_message = "n must be positive"
    }
  }
}
output "key" {
  value       = stateful_provisioning.app[*].id
  sensitive   = true
  description = "keys"
  depends_on  = [terraform_data.base]
}
removed {
  from = stateful_provisioning.old
  lifecycle {
    destroy = false
  }
}
