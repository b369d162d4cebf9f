# The content of a terraform.tfvars file: attributes only, HCL values of their own types
nodes   = ["k3s-server-1", "k3s-agent-1", "k3s-agent-2"]
replica = 3
enabled = true
labels = {
  role = "server"
  "zone.name" = "eu-1"
}
servers = [
  { name = "a", ip = "10.0.0.1", ports = [22, 6443] },
  { name = "b", ip = "10.0.0.2", ports = [22] },
]
empty = null
