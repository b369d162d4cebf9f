# The whole connection schema, values known after apply, and check blocks (issue 29 items 3, 5, 11)
resource "null_resource" "bootstrap" {
  triggers = {
    always = timestamp()
    id     = uuid()
  }

  connection {
    type                = "ssh"
    host                = "10.0.0.5"
    user                = "deploy"
    agent               = false
    agent_identity      = null
    private_key         = file("${path.module}/id_ed25519")
    bastion_host        = "bastion.example.com"
    bastion_certificate = null
    proxy_scheme        = "socks5"
    proxy_host          = "127.0.0.1"
    proxy_port          = 1080
    proxy_user_name     = "p"
    proxy_user_password = "s3cret"
    target_platform     = "unix"
    script_path         = "/tmp/bootstrap_%RAND%.sh"
    https               = false
    insecure            = true
    use_ntlm            = false
    cacert              = null
  }

  provisioner "remote-exec" {
    inline = ["sudo systemctl restart k3s"]
  }
}

resource "terraform_data" "marker" {
  input            = null_resource.bootstrap.id
  triggers_replace = [timestamp()]
}

check "bootstrap_marker" {
  assert {
    condition     = terraform_data.marker.output != ""
    error_message = "The marker is empty: ${terraform_data.marker.id}."
  }

  assert {
    condition     = length(null_resource.bootstrap.triggers) == 2
    error_message = "Unexpected triggers."
  }
}
