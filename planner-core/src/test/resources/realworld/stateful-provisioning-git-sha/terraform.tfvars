git_sha = "3f2c9a1e8b7d"
