enable_monitoring = true
