a = <<-EOT
    foo
${var.x} bar
    EOT
