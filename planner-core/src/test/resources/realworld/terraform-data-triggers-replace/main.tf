# terraform_data replaces null_resource since Terraform 1.4: rebuild the app whenever the
# version or the config file changes, and keep the version around as input/output.

variable "app_version" {
  type        = string
  description = "Version of the application to roll out"
}

variable "environment" {
  type    = string
  default = "staging"
}

resource "terraform_data" "app_config" {
  input = {
    version     = var.app_version
    environment = var.environment
    config_sha  = filesha256("${path.module}/config/app.yaml")
  }
}

resource "terraform_data" "rollout" {
  triggers_replace = [
    var.app_version,
    filesha256("${path.module}/config/app.yaml"),
  ]

  input = terraform_data.app_config.output

  provisioner "local-exec" {
    command = "./rollout.sh ${self.input.version} ${self.input.environment}"
  }
}

output "deployed_version" {
  value = terraform_data.app_config.output.version
}
