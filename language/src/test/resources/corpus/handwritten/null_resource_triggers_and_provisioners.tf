variable "cluster_instance_ips" {
  type    = list(string)
  default = ["10.0.0.1", "10.0.0.2"]
}

resource "null_resource" "cluster" {
  # Changes to any instance of the cluster requires re-provisioning
  triggers = {
    cluster_instance_ids = join(",", var.cluster_instance_ips)
  }

  # Bootstrap script can run on any instance of the cluster
  # So we just choose the first in this case
  connection {
    host = element(var.cluster_instance_ips, 0)
  }

  provisioner "remote-exec" {
    # Bootstrap script called with private_ip of each node in the cluster
    inline = [
      "bootstrap-cluster.sh ${join(" ", var.cluster_instance_ips)}",
    ]
  }
}
