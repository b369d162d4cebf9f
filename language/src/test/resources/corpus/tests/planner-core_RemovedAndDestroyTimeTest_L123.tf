resource "stateful_provisioning" "app" {
  count     = 1
  state_key = "%s"
  lifecycle {
    create_before_destroy = 1
  }
  provisioner "local-exec" {
    command = "deploy ${self.state_key}"
  }
  provisioner "local-exec" {
    when    = destroy
    command = "undeploy ${self.state_key} #${count.index}"
  }
}
