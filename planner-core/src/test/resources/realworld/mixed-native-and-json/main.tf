resource "null_resource" "worker" {
  count = var.workers

  triggers = {
    region = var.region
    name   = "worker-${var.region}-${count.index}"
  }

  provisioner "local-exec" {
    command = "echo ${self.triggers.name}"
  }
}

resource "null_resource" "register" {
  triggers = {
    workers = join(",", null_resource.worker.*.id)
  }

  provisioner "local-exec" {
    command = "echo registering ${join(" ", null_resource.worker[*].triggers.name)}"
  }
}
