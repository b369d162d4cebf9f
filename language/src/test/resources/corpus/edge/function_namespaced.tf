a = provider::terraform::encode_tfvars({})
