variable "target_host" {
  type    = string
  default = "10.20.30.40"
}

resource "null_resource" "config_file" {
  for_each = fileset("${path.module}/configs", "*.conf")

  triggers = {
    md5  = filemd5("${path.module}/configs/${each.value}")
    host = var.target_host
  }

  connection {
    type        = "ssh"
    host        = var.target_host
    user        = "ec2-user"
    private_key = file("${path.module}/ssh_key")
  }

  provisioner "file" {
    source      = "${path.module}/configs/${each.value}"
    destination = "/etc/myapp/${each.value}"
  }
}

resource "null_resource" "reload" {
  triggers = {
    all_configs = sha256(join("", [for f in fileset("${path.module}/configs", "*.conf") : filesha256("${path.module}/configs/${f}")]))
  }

  depends_on = [null_resource.config_file]

  connection {
    type        = "ssh"
    host        = var.target_host
    user        = "ec2-user"
    private_key = file("${path.module}/ssh_key")
  }

  provisioner "remote-exec" {
    inline = ["sudo systemctl reload myapp"]
  }
}
