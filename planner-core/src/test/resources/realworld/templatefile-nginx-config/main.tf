variable "server_name" {
  type    = string
  default = "app.example.com"
}

variable "upstreams" {
  type = list(object({
    host = string
    port = number
  }))
  default = [
    { host = "10.0.2.10", port = 8080 },
    { host = "10.0.2.11", port = 8080 },
  ]
}

variable "proxy_host" {
  type    = string
  default = "198.51.100.20"
}

locals {
  nginx_conf = templatefile("${path.module}/templates/nginx.conf.tpl", {
    server_name = var.server_name
    upstreams   = var.upstreams
  })
}

resource "null_resource" "nginx" {
  triggers = {
    config_hash = sha256(local.nginx_conf)
  }

  connection {
    type  = "ssh"
    host  = var.proxy_host
    user  = "root"
    agent = true
  }

  provisioner "file" {
    content     = local.nginx_conf
    destination = "/etc/nginx/conf.d/app.conf"
  }

  provisioner "remote-exec" {
    inline = [
      "nginx -t",
      "systemctl reload nginx",
    ]
  }
}
