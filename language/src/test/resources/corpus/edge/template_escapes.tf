a = "\n\r\t\"\\ \u00e9 \U0001F600 $${x} %%{y} $$ %% $ %"
b = "$$${x}"
c = "%%%{ if true }y%{ endif }"
