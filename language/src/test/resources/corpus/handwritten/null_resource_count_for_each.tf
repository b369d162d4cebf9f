locals {
  services = {
    api    = { port = 8080, replicas = 2 }
    worker = { port = 0, replicas = 4 }
  }
  ports = [for name, svc in local.services : svc.port if svc.port > 0]
}

resource "null_resource" "service" {
  for_each = local.services

  triggers = {
    name     = each.key
    replicas = tostring(each.value.replicas)
    digest   = sha256(jsonencode(each.value))
  }

  provisioner "local-exec" {
    command     = "deploy ${each.key} --replicas=${each.value.replicas}"
    working_dir = path.module
    environment = {
      PORT = each.value.port
    }
  }

  provisioner "local-exec" {
    when       = destroy
    command    = "undeploy ${self.triggers.name}"
    on_failure = continue
  }
}

resource "null_resource" "shards" {
  count = length(local.ports) * 2

  triggers = {
    shard = count.index
    all   = join(",", null_resource.service[*].id)
  }

  depends_on = [null_resource.service]
}
