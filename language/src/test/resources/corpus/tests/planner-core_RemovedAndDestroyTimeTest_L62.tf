removed {
  from = stateful_provisioning.app
  lifecycle {
    destroy = true
  }
  provisioner "local-exec" {
    when    = destroy
    command = "undeploy ${self.id} on ${self.tags.host}"
    connection {
      host = self.tags.host
    }
  }
}
