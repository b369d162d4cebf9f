app_version = "2.4.1"
