variable "environment" {
  type    = string
  default = "prod"
}

variable "domain" {
  type    = string
  default = "shop.example.com"
}

variable "instance_sizes" {
  type = map(string)
  default = {
    dev     = "small"
    staging = "medium"
    prod    = "large"
  }
}

variable "dns_servers" {
  type    = list(string)
  default = ["10.0.0.2", "10.0.0.3"]
}

locals {
  size        = lookup(var.instance_sizes, var.environment, "small")
  domain_slug = replace(var.domain, ".", "-")
  node_names  = [for i in range(3) : format("%s-%s-%02d", local.domain_slug, var.environment, i + 1)]
  resolv_conf = join("\n", formatlist("nameserver %s", var.dns_servers))
  upper_env   = upper(var.environment)
}

resource "null_resource" "node" {
  count = length(local.node_names)

  triggers = {
    name = local.node_names[count.index]
    size = local.size
  }

  provisioner "local-exec" {
    command = format("echo provisioning %s with size %s in %s", local.node_names[count.index], local.size, local.upper_env)
  }

  provisioner "local-exec" {
    command = "printf '%s\\n' '${local.resolv_conf}' > resolv-${count.index}.conf"
  }
}

output "node_names" {
  value = join(", ", null_resource.node[*].triggers.name)
}
