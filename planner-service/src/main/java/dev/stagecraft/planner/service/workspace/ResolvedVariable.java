package dev.stagecraft.planner.service.workspace;

/**
 * One variable a run uses, after precedence chose between its sources.
 *
 * @param value the value in clear (only in memory: never logged, stored sealed when {@code
 *     sensitive})
 * @param hcl the value is an HCL expression (it keeps its own type), else a string as {@code -var}
 *     gives it; always false for {@link VariableCategory#ENV}
 * @param sensitive the value is secret: sealed at rest, marked sensitive in the plan, redacted from
 *     output, never shown by the API
 */
public record ResolvedVariable(
    String key,
    VariableCategory category,
    String value,
    boolean hcl,
    boolean sensitive,
    VariableOrigin origin) {

  @Override
  public String toString() {
    // a record's toString would print the value: never
    return "ResolvedVariable["
        + category
        + " "
        + key
        + (sensitive ? " (sensitive)" : "")
        + " from "
        + origin.describe()
        + "]";
  }
}
