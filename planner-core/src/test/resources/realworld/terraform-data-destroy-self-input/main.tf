variable "cluster_name" {
  type    = string
  default = "demo"
}

variable "node_names" {
  type    = list(string)
  default = ["node-a", "node-b"]
}

resource "terraform_data" "node" {
  count = length(var.node_names)

  input = {
    name    = var.node_names[count.index]
    cluster = var.cluster_name
    index   = count.index
  }

  provisioner "local-exec" {
    command = "echo joining ${self.input.name} to ${self.input.cluster}"
  }

  provisioner "local-exec" {
    when    = destroy
    command = "kubectl drain ${self.output.name} --ignore-daemonsets --delete-emptydir-data && kubectl delete node ${self.input.name}"
  }

  provisioner "local-exec" {
    when    = destroy
    command = "echo removed node number ${count.index} of cluster ${self.input.cluster}"
  }
}

output "nodes" {
  value = [for n in terraform_data.node : n.output.name]
}
