variable "app_version" {
  type    = string
  default = "1.2.3"
}

resource "terraform_data" "app_version" {
  input = var.app_version
}

resource "null_resource" "deploy" {
  lifecycle {
    replace_triggered_by = [terraform_data.app_version]
  }

  provisioner "local-exec" {
    command = "helm upgrade --install app ./chart --set image.tag=${terraform_data.app_version.output}"
  }
}

resource "terraform_data" "smoke_test" {
  lifecycle {
    replace_triggered_by = [null_resource.deploy.id]
  }

  provisioner "local-exec" {
    command = "curl -fsS https://app.example.com/version | grep ${var.app_version}"
  }
}
