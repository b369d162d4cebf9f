locals {
  script = <<-EOT
    start
    %{ for h in var.hosts ~}
    ping ${h}
    %{ endfor ~}
    done
    EOT
}
