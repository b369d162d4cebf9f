package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.apply.ApplyContext;
import java.util.Map;

/**
 * The outcome of planning: a plan, or diagnostics (every problem found, with positions), and the
 * context needed later to resolve each action's provisioner steps with values known only at apply.
 */
public record PlanResult(
    Plan plan, Diagnostics diagnostics, Map<String, String> sources, ApplyContext applyContext) {

  public boolean hasErrors() {
    return diagnostics.hasErrors() || plan == null;
  }

  /** Every diagnostic rendered as Terraform renders them (with source excerpts). */
  public String renderDiagnostics() {
    return diagnostics.render(sources);
  }
}
