package dev.stagecraft.planner.service.adapter.http;

import io.micronaut.core.annotation.Nullable;

/**
 * The body that sets a variable of a workspace or a variable set (docs/workspaces.md).
 *
 * @param value the value (a string; an HCL expression when {@code hcl}); required, may be empty
 * @param category {@code terraform} (default) or {@code env}
 * @param hcl the value is an HCL expression (Terraform variables only); default false
 * @param sensitive the value is secret: stored sealed, never shown again; default false
 * @param description what the variable is for
 */
public record VariableBody(
    @Nullable String value,
    @Nullable String category,
    @Nullable Boolean hcl,
    @Nullable Boolean sensitive,
    @Nullable String description) {
  @Override
  public String toString() {
    // a record's toString would print the value: never
    return "VariableBody["
        + category
        + (Boolean.TRUE.equals(sensitive) ? " (sensitive)" : "")
        + "]";
  }
}
