package dev.stagecraft.planner.service.workspace;

/**
 * What a stored variable is for: a Terraform input variable ({@code var.NAME}) or an environment
 * variable given to every {@code local-exec} step of the run, inside its sandbox
 * (docs/workspaces.md).
 */
public enum VariableCategory {
  TERRAFORM,
  ENV
}
