a = <<EOT
back\\slash \n $${lit} %%{lit} \"q\"
EOT
