package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import java.math.BigDecimal;

/**
 * The resource instances of one plan, counted against {@link PlanLimits} as {@code count} and
 * {@code for_each} are expanded, before their instance keys are made. Not thread-safe: one per
 * planning pass.
 */
final class InstanceCount {
  private final PlanLimits limits;
  private final Diagnostics diagnostics;
  private int instances;

  InstanceCount(PlanLimits limits, Diagnostics diagnostics) {
    this.limits = limits;
    this.diagnostics = diagnostics;
  }

  /**
   * Counts {@code n} more instances of {@code r} when they stay within the limits per resource and
   * per plan; else adds an error at {@code range} saying which ({@code what}: "count is 200000")
   * and returns false.
   */
  boolean admit(String what, BigDecimal n, String address, SourceRange range) {
    if (n.compareTo(BigDecimal.valueOf(limits.maxInstancesPerResource())) > 0) {
      diagnostics.error(
          "Too many instances",
          what
              + ", above the limit of "
              + limits.maxInstancesPerResource()
              + " instances per resource. Split "
              + address
              + " into several resources, or make fewer instances.",
          range);
      return false;
    }
    instances += n.intValue();
    if (instances > limits.maxInstancesPerPlan()) {
      diagnostics.error(
          "Too many instances",
          "With "
              + address
              + " ("
              + what
              + ") the configuration makes "
              + instances
              + " resource instances, above the limit of "
              + limits.maxInstancesPerPlan()
              + " instances per plan. Split it into several workspaces.",
          range);
      return false;
    }
    return true;
  }
}
