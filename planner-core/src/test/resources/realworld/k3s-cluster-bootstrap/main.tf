variable "server_ip" {
  type    = string
  default = "10.1.0.10"
}

variable "agent_ips" {
  type    = list(string)
  default = ["10.1.0.11", "10.1.0.12", "10.1.0.13"]
}

variable "k3s_token" {
  type      = string
  sensitive = true
  default   = "K10-test-token"
}

variable "ssh_key" {
  type    = string
  default = "keys/k3s"
}

resource "null_resource" "k3s_server" {
  connection {
    type        = "ssh"
    host        = var.server_ip
    user        = "root"
    private_key = file("${path.module}/${var.ssh_key}")
  }

  provisioner "remote-exec" {
    inline = [
      "curl -sfL https://get.k3s.io | K3S_TOKEN=${var.k3s_token} sh -s - server --cluster-init",
      "until kubectl get nodes; do sleep 5; done",
    ]
  }
}

resource "null_resource" "k3s_agent" {
  count = length(var.agent_ips)

  triggers = {
    server_id = null_resource.k3s_server.id
    agent_ip  = element(var.agent_ips, count.index)
  }

  provisioner "remote-exec" {
    connection {
      type        = "ssh"
      host        = element(var.agent_ips, count.index)
      user        = "root"
      private_key = file("${path.module}/${var.ssh_key}")
    }

    inline = [
      "curl -sfL https://get.k3s.io | K3S_URL=https://${var.server_ip}:6443 K3S_TOKEN=${var.k3s_token} sh -",
    ]
  }

  provisioner "local-exec" {
    when    = destroy
    command = "kubectl delete node agent-${count.index} --ignore-not-found"
  }
}

resource "null_resource" "kubeconfig" {
  depends_on = [null_resource.k3s_agent]

  provisioner "local-exec" {
    command = "scp -o StrictHostKeyChecking=no root@${var.server_ip}:/etc/rancher/k3s/k3s.yaml ./kubeconfig"
  }
}

output "agent_ids" {
  value = null_resource.k3s_agent[*].id
}
