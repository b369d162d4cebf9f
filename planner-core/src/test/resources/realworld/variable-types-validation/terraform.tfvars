environment = "prod"
http_port   = 8443
replicas    = 3
enable_tls  = true
