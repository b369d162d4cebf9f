a = <<EOT
EOT
b = <<-EOT
  EOT
