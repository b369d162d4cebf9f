db_password = "s3cr3t-for-tests"
