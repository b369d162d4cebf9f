a = <<EOT
one
  ${~ var.x} two
EOT
