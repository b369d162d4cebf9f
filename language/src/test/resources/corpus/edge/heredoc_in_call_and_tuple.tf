a = upper(<<EOT
hello
EOT
)
b = [
  <<-EOT
    x
  EOT
  , "y"
]
