variable "app_config" {
  type = object({
    replicas = number
    image    = string
    env      = map(string)
  })
  default = {
    replicas = 3
    image    = "registry.example.com/shop:1.8.0"
    env = {
      LOG_LEVEL = "info"
      REGION    = "eu-west-1"
    }
  }
}

resource "null_resource" "render" {
  triggers = {
    config      = jsonencode(var.app_config)
    config_sha1 = sha1(jsonencode(var.app_config))
  }

  provisioner "local-exec" {
    command = "echo '${jsonencode(var.app_config)}' > app.json"
  }
}

resource "terraform_data" "deploy" {
  triggers_replace = jsonencode({
    image    = var.app_config.image
    replicas = var.app_config.replicas
  })

  provisioner "local-exec" {
    command = "kubectl set image deployment/shop shop=${var.app_config.image} && kubectl scale deployment/shop --replicas=${var.app_config.replicas}"
  }
}
