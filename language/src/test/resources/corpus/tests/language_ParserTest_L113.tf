a = <<EOT
hello ${name}
EOT
b = <<-EOT
    one
      two
    EOT
