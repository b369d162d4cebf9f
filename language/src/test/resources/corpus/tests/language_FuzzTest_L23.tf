variable "x" { default = [1, 2.5e3, "s\n${a}", true, null] }
locals {
  o = { a = 1, "b" : 2, (var.k) = [for i, v in var.xs : v if i > 0] }
  m = {for k, v in var.m : v => k...}
  t = "%{ if var.c }yes%{ else }no%{ endif } %{~ for x in var.xs ~} ${x} %{ endfor }"
  h = <<-EOT
    hi ${upper(var.name)}
    EOT
  s = stateful_provisioning.app[*].id
  l = stateful_provisioning.app.*.id
  i = stateful_provisioning.app[0].id
  f = format("%s-%d", var.a, -1 + 2 * 3 % 4 / 5) == "x" ? !true : false || true && 1 < 2
  e = join(",", var.xs...)
}
resource "stateful_provisioning" "app" {
  state_key = "${var.x}" // comment
  provisioner "local-exec" { command = "echo" }
  /* block */
  connection {
    type = "ssh"
  }
}
