a = provider :: terraform :: encode_tfvars({})
b = core::upper("x")
c = "${x::y(1, 2)}"
