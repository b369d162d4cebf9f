removed {
  from = stateful_provisioning.app
  lifecycle {
    destroy = false
  }
}
