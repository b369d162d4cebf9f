a = "%{ for k, v in var.m }%{ if v != null }${k}=${v};%{ else }${k};%{ endif }%{ endfor }"
