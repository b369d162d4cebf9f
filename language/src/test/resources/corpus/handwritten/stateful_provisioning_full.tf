terraform {
  required_version = ">= 1.5"
}

variable "revision_to_deploy" {
  type        = string
  description = "The VCS revision to deploy."
  sensitive   = false

  validation {
    condition     = length(var.revision_to_deploy) >= 7
    error_message = "Use at least 7 characters of the revision."
  }
}

variable "hosts" {
  type    = list(string)
  default = []
}

locals {
  short = substr(var.revision_to_deploy, 0, 7)
  motd  = <<-EOT
    Deployed revision ${local.short}
    %{ for h in var.hosts }- ${h}
    %{ endfor }
    EOT
}

resource "stateful_provisioning" "app" {
  state_key = "${var.revision_to_deploy}"

  provisioner "local-exec" {
    command = <<-SCRIPT
      set -eu
      echo "deploying ${local.short}"
      ./deploy.sh --revision=${var.revision_to_deploy}
    SCRIPT
  }

  provisioner "remote-exec" {
    inline = [
      "my-favorite-deployment-tool --revision=${var.revision_to_deploy}",
      "systemctl restart app",
    ]

    connection {
      type        = "ssh"
      user        = "deployment-user"
      host        = "deployment-admin-host.example.com"
      private_key = file("~/.ssh/deploy")
      timeout     = "2m"
    }
  }

  lifecycle {
    create_before_destroy = true
    ignore_changes        = [tags]
  }
}

resource "stateful_provisioning" "smoke" {
  state_key  = stateful_provisioning.app.id
  depends_on = [stateful_provisioning.app]

  provisioner "local-exec" {
    command    = "curl -fsS https://app.example.com/health"
    on_failure = fail
  }
}

output "deployed" {
  value       = stateful_provisioning.app.state_key
  description = "What is deployed now."
  precondition {
    condition     = stateful_provisioning.app.state_key != ""
    error_message = "Nothing deployed."
  }
}
