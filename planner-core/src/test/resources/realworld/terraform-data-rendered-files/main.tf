variable "prometheus_targets" {
  type    = list(string)
  default = ["10.5.0.10:9100", "10.5.0.11:9100"]
}

variable "monitoring_host" {
  type    = string
  default = "10.5.0.2"
}

locals {
  prometheus_yml = yamlencode({
    global = {
      scrape_interval = "15s"
    }
    scrape_configs = [
      {
        job_name       = "node"
        static_configs = [{ targets = var.prometheus_targets }]
      }
    ]
  })
}

resource "terraform_data" "prometheus_config" {
  triggers_replace = {
    config = sha256(local.prometheus_yml)
    host   = var.monitoring_host
  }

  input = {
    host = var.monitoring_host
    path = "/etc/prometheus/prometheus.yml"
  }

  connection {
    type        = "ssh"
    host        = self.input.host
    user        = "prometheus"
    private_key = base64decode(filebase64("${path.module}/monitoring.key"))
  }

  provisioner "file" {
    content     = local.prometheus_yml
    destination = "/tmp/prometheus.yml"
  }

  provisioner "remote-exec" {
    inline = [
      "sudo mv /tmp/prometheus.yml ${self.input.path}",
      "echo ${base64encode(local.prometheus_yml)} | base64 -d | sha256sum",
      "sudo systemctl reload prometheus",
    ]
  }

  provisioner "remote-exec" {
    when   = destroy
    inline = ["sudo rm -f ${self.output.path}"]
  }
}

output "prometheus_config" {
  value = local.prometheus_yml
}
