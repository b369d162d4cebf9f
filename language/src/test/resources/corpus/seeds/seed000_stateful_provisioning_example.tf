variable "revision_to_deploy" {
}

resource "stateful_provisioning" "app" {
    # Run deployment steps whenever the revision_to_deploy changes.
    state_key = "${var.revision_to_deploy}"

    provisioner "remote-exec" {
        inline = [
            "my-favorite-deployment-tool --revision=${var.revision_to_deploy}"
        ]

        connection {
            user = "deployment-user"
            host = "deployment-admin-host.example.com"
            key_file = "deployment_private_key"
        }
    }
}
