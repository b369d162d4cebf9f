package dev.stagecraft.planner.service.workspace;

import java.util.Objects;

/**
 * One variable a workspace or a variable set holds (docs/workspaces.md).
 *
 * @param key the variable's name: a Terraform variable's ({@code var.KEY}) or an environment
 *     variable's
 * @param value the value in clear, in memory only (stored sealed when {@code sensitive}); null
 *     where it was not opened (a listing, which never shows a sensitive value)
 * @param hcl the value is an HCL expression; never for {@link VariableCategory#ENV}
 * @param sensitive the value is secret: sealed at rest, never shown by the API
 * @param description what it is for, for people ({@code ""} when none)
 */
public record StoredVariable(
    String key,
    VariableCategory category,
    String value,
    boolean hcl,
    boolean sensitive,
    String description) {
  public StoredVariable {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(category, "category");
    description = description == null ? "" : description;
  }

  /** The same variable without its value (what a listing holds of a sensitive one). */
  public StoredVariable withoutValue() {
    return new StoredVariable(key, category, null, hcl, sensitive, description);
  }

  /** Whether this is the variable {@code category}/{@code key}. */
  public boolean is(VariableCategory category, String key) {
    return this.category == category && this.key.equals(key);
  }

  @Override
  public String toString() {
    // a record's toString would print the value: never
    return "StoredVariable[" + category + " " + key + (sensitive ? " (sensitive)" : "") + "]";
  }
}
