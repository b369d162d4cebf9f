package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.EvalBudget;

/**
 * What one plan may spend (docs/planning.md "Budgets", ADR 0061): the budget of evaluating its
 * configuration (a deadline, string sizes, values built) and how many resource instances {@code
 * count} and {@code for_each} may make. Every limit exceeded is an error naming the limit, at the
 * expression where it was hit.
 *
 * @param evaluation the evaluation budget every expression of the plan counts against
 * @param maxInstancesPerResource the most instances {@code count} or {@code for_each} may make of
 *     one resource
 * @param maxInstancesPerPlan the most resource instances the configuration may make in all
 */
public record PlanLimits(
    EvalBudget.Limits evaluation, int maxInstancesPerResource, int maxInstancesPerPlan) {

  /** Limits a real deployment never meets. */
  public static final PlanLimits DEFAULT =
      new PlanLimits(EvalBudget.Limits.DEFAULT, 10_000, 100_000);

  public PlanLimits {
    if (evaluation == null || maxInstancesPerResource < 1 || maxInstancesPerPlan < 1) {
      throw new IllegalArgumentException("plan limits must be given and positive");
    }
  }
}
