output "server_names" {
  description = "Names of the provisioned servers"
  value       = [for s in null_resource.server : s.triggers.name]
}

output "name_prefix" {
  value = local.name_prefix
}
