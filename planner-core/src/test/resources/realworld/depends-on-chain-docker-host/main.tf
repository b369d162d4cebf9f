variable "server_ip" {
  type    = string
  default = "198.51.100.7"
}

variable "ssh_private_key" {
  type      = string
  sensitive = true
  default   = "placeholder-key-material"
}

resource "null_resource" "install_docker" {
  connection {
    type        = "ssh"
    host        = var.server_ip
    user        = "root"
    private_key = var.ssh_private_key
  }

  provisioner "remote-exec" {
    inline = [
      "curl -fsSL https://get.docker.com -o get-docker.sh",
      "sh get-docker.sh",
      "systemctl enable --now docker",
    ]
  }
}

resource "null_resource" "copy_compose" {
  depends_on = [null_resource.install_docker]

  triggers = {
    compose_md5 = md5(file("${path.module}/files/docker-compose.yml"))
  }

  connection {
    type        = "ssh"
    host        = var.server_ip
    user        = "root"
    private_key = var.ssh_private_key
  }

  provisioner "remote-exec" {
    inline = ["mkdir -p /opt/stack"]
  }

  provisioner "file" {
    source      = "${path.module}/files/docker-compose.yml"
    destination = "/opt/stack/docker-compose.yml"
  }
}

resource "null_resource" "compose_up" {
  depends_on = [
    null_resource.install_docker,
    null_resource.copy_compose,
  ]

  triggers = {
    compose = null_resource.copy_compose.id
  }

  connection {
    type        = "ssh"
    host        = var.server_ip
    user        = "root"
    private_key = var.ssh_private_key
  }

  provisioner "remote-exec" {
    inline = [
      "cd /opt/stack && docker compose pull",
      "cd /opt/stack && docker compose up -d --remove-orphans",
    ]
  }
}
