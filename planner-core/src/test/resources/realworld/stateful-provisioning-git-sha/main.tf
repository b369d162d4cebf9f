variable "git_sha" {
  type        = string
  description = "Commit to deploy"

  validation {
    condition     = can(regex("^[0-9a-f]{7,40}$", var.git_sha))
    error_message = "git_sha must be a hex commit id."
  }
}

variable "app_hosts" {
  type    = list(string)
  default = ["app1.internal", "app2.internal"]
}

resource "stateful_provisioning" "release" {
  state_key = var.git_sha

  tags = {
    team    = "payments"
    release = substr(var.git_sha, 0, 7)
  }

  provisioner "local-exec" {
    command = "git -C /srv/checkout fetch && git -C /srv/checkout checkout ${var.git_sha}"
  }
}

resource "stateful_provisioning" "deploy" {
  count     = length(var.app_hosts)
  state_key = "${var.git_sha}-${var.app_hosts[count.index]}"

  triggers = {
    release = stateful_provisioning.release.id
  }

  provisioner "remote-exec" {
    connection {
      type        = "ssh"
      host        = var.app_hosts[count.index]
      user        = "deploy"
      private_key = file("${path.module}/deploy_key")
    }

    inline = [
      "cd /srv/app && git fetch --all && git checkout ${var.git_sha}",
      "sudo systemctl restart app",
    ]
  }

  provisioner "local-exec" {
    when    = destroy
    command = "echo 'retired release on host ${count.index}: ${self.state_key}'"
  }
}

output "release_id" {
  value = stateful_provisioning.release.id
}
