a = "x  ${~ var.a ~}  y"
b = "%{ if var.c ~}  yes  %{~ else ~}  no  %{~ endif }"
c = "  %{~ for x in var.l ~}  ${x}  %{~ endfor ~}  "
