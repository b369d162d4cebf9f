variable "revision_to_deploy" {
}

resource "stateful_provisioning" "app" {
    # Run deployment steps whenever the revision_to_deploy changes.
    state_key = "${var.revision_to_deploy}"

    provisioner "local-exec" {
        command = "echo ${var.revision_to_deploy} >> deployed.txt"
    }
}
