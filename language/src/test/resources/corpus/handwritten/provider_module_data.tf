terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "~> 3.2"
    }
  }
  backend "http" {
    address        = "http://localhost:8080/state/app"
    lock_address   = "http://localhost:8080/state/app/lock"
    unlock_address = "http://localhost:8080/state/app/lock"
  }
}

provider "null" {
  alias = "secondary"
}

module "network" {
  source = "./modules/network"
  cidr   = "10.0.0.0/16"
  providers = {
    null = null.secondary
  }
}

data "external" "git" {
  program = ["sh", "-c", "echo '{\"rev\":\"'$(git rev-parse HEAD)'\"}'"]
}

resource "null_resource" "uses_all" {
  provider = null.secondary
  triggers = {
    vpc = module.network.vpc_id
    rev = data.external.git.result.rev
    ws  = terraform.workspace
    cwd = abspath(path.cwd)
  }
}
