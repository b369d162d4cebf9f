a = <<-EOT
    foo

    bar
    EOT
