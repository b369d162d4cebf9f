admin_password   = "correct-horse-battery"
db_root_password = "staple-for-tests"
