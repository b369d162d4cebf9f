a = true ? 1 ::2
