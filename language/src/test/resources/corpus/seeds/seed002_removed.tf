# Seed 002: forgetting a resource with a `removed` block.
removed {
  from = aws_instance.example

  lifecycle {
    destroy = false
  }
}

removed {
  from = module.network.aws_vpc.main

  lifecycle {
    destroy = true
  }

  provisioner "local-exec" {
    when    = destroy
    command = "echo 'instance ${self.id} was destroyed'"
  }
}
