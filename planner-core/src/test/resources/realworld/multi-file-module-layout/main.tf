locals {
  name_prefix = "${var.project}-${var.environment}"
  common_tags = {
    Project     = var.project
    Environment = var.environment
    Workspace   = terraform.workspace
  }
}

resource "null_resource" "server" {
  for_each = var.servers

  triggers = {
    name = "${local.name_prefix}-${each.key}"
    ip   = each.value.ip
    user = each.value.user
    key  = "${path.root}/scripts/id_rsa"
  }

  connection {
    type        = "ssh"
    host        = self.triggers.ip
    user        = self.triggers.user
    private_key = file(self.triggers.key)
  }

  provisioner "remote-exec" {
    script = "${path.module}/scripts/harden.sh"
  }

  provisioner "local-exec" {
    when    = destroy
    command = "echo '${self.triggers.name} (${each.key}) destroyed'"
  }
}

resource "stateful_provisioning" "tagging" {
  state_key = local.name_prefix
  tags      = local.common_tags

  provisioner "local-exec" {
    command = "echo tagged ${jsonencode(local.common_tags)}"
  }
}
