# Seed 000's example, with local-exec in place of remote-exec so it runs on this machine.
variable "revision_to_deploy" {
  default = "r1"
}

resource "stateful_provisioning" "app" {
  # Run deployment steps whenever the revision_to_deploy changes.
  state_key = "${var.revision_to_deploy}"

  provisioner "local-exec" {
    command = "echo \"deploying revision ${var.revision_to_deploy}\""
  }
}

resource "stateful_provisioning" "smoke_test" {
  # Runs after every deployment of the app: its state key is the app's id, new on each replace.
  state_key = stateful_provisioning.app.id

  provisioner "local-exec" {
    command = "echo \"smoke testing revision ${var.revision_to_deploy} (deployment ${stateful_provisioning.app.id})\""
  }
}
