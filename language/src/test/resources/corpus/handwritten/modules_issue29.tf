# Module calls as deployments write them: repeated with for_each and count, git sources,
# and refactoring with moved and removed blocks that name module addresses.
variable "regions" {
  type = map(object({ subnet = string, replicas = number }))
  default = {
    eu = { subnet = "10.1", replicas = 2 }
    us = { subnet = "10.2", replicas = 1 }
  }
}

module "app" {
  for_each = var.regions
  source   = "./modules/app"
  region   = each.key
  subnet   = each.value.subnet
  replicas = each.value.replicas
  depends_on = [null_resource.bastion]
  providers = {}
}

module "edge" {
  count  = 2
  source = "git::https://git.example.com/infra/modules.git//edge?ref=v1.4.0"
  name   = "edge-${count.index}"
}

resource "null_resource" "bastion" {
  triggers = { hosts = jsonencode({ for k, m in module.app : k => m.hosts }) }
}

output "edges" {
  value = module.edge[*].name
}

moved {
  from = module.web
  to   = module.app["eu"]
}

moved {
  from = null_resource.deploy
  to   = module.app["eu"].null_resource.deploy
}

moved {
  from = module.edge[0].null_resource.x["a.b"]
  to   = null_resource.edge_x
}

removed {
  from = module.legacy
  lifecycle {
    destroy = false
  }
}
