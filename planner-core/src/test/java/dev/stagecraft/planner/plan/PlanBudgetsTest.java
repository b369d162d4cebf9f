package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.eval.EvalBudget;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A plan stays within its limits (docs/planning.md "Budgets"): instances per resource and per plan,
 * and the evaluation budget with its deadline. Each exceeded limit is one error naming the limit at
 * file:line:col, and the plan stops there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PlanBudgetsTest {

  private static PlanResult plan(String config, PlanLimits limits) {
    Map<String, String> files = Map.of("main.tf", config);
    PlanRequest request = new PlanRequest("default", files, Map.of(), List.of(), false, null);
    return Planner.plan(request, PriorState.empty(), Planner.parse(files), limits);
  }

  private static Diagnostic onlyError(PlanResult result) {
    assertThat(result.hasErrors()).isTrue();
    assertThat(result.diagnostics().errors()).hasSize(1);
    return result.diagnostics().errors().get(0);
  }

  @Test
  void countAboveTheLimitPerResourceIsAnErrorAtTheCount() {
    Diagnostic d =
        onlyError(
            plan(
                """
                resource "stateful_provisioning" "web" {
                  state_key = "v1"

                  count = 200000
                }
                """,
                PlanLimits.DEFAULT));
    assertThat(d.range()).hasToString("main.tf:4:11");
    assertThat(d.detail())
        .startsWith("count is 200000, above the limit of 10000 instances per resource.");
  }

  @Test
  void forEachAboveTheLimitPerResourceIsAnErrorAtTheForEach() {
    Diagnostic d =
        onlyError(
            plan(
                """
                resource "stateful_provisioning" "web" {
                  for_each  = toset(flatten([for a in range(11) : [for b in range(1000) : "${a}-${b}"]]))
                  state_key = each.key
                }
                """,
                PlanLimits.DEFAULT));
    assertThat(d.range()).hasToString("main.tf:2:15");
    assertThat(d.detail())
        .startsWith(
            "for_each has 11000 elements, above the limit of 10000 instances per resource.");
  }

  @Test
  void instancesAboveTheLimitPerPlanAreAnErrorAtTheResourceThatWentOver() {
    PlanLimits limits = new PlanLimits(EvalBudget.Limits.DEFAULT, 10, 25);
    Diagnostic d =
        onlyError(
            plan(
                """
                resource "stateful_provisioning" "a" {
                  count     = 10
                  state_key = "a"
                }
                resource "stateful_provisioning" "b" {
                  count     = 10
                  state_key = "b"
                }
                resource "stateful_provisioning" "c" {
                  count     = 10
                  state_key = "c"
                }
                """,
                limits));
    assertThat(d.range()).hasToString("main.tf:10:15");
    assertThat(d.detail())
        .contains("stateful_provisioning.c (count is 10)")
        .contains("30 resource instances, above the limit of 25 instances per plan");
  }

  @Test
  void theDeadlineStopsAPlanWhoseEvaluationWouldRunForMinutes() {
    // about a billion iterations of a nested for expression that builds nothing
    PlanLimits limits =
        new PlanLimits(
            EvalBudget.Limits.DEFAULT.withTimeLimit(Duration.ofSeconds(1)), 10_000, 100_000);
    Diagnostic d =
        onlyError(
            plan(
                """
                locals {
                  r    = range(1024)
                  slow = [for a in local.r : a if length([for b in local.r : b if length([for c in local.r : c if c < 0]) > 0]) > 0]
                }
                resource "stateful_provisioning" "app" {
                  state_key = length(local.slow)
                }
                """,
                limits));
    assertThat(d.summary()).isEqualTo("Evaluation deadline exceeded");
    assertThat(d.detail()).contains("the limit of 1 s per plan");
    assertThat(d.range().file()).isEqualTo("main.tf");
    assertThat(d.range().line()).isEqualTo(3);
  }

  @Test
  void valuesBuiltAcrossThePlanShareOneBudget() {
    // each local alone is within the limit of 4,000,000 elements; together they are not
    Diagnostic d =
        onlyError(
            plan(
                """
                locals {
                  r = range(1024)
                  a = [for x in local.r : [for y in local.r : y]]
                  b = [for x in local.r : [for y in local.r : y]]
                  c = [for x in local.r : [for y in local.r : y]]
                  d = [for x in local.r : [for y in local.r : y]]
                }
                resource "stateful_provisioning" "app" {
                  state_key = length(local.a) + length(local.b) + length(local.c) + length(local.d)
                }
                """,
                PlanLimits.DEFAULT));
    assertThat(d.summary()).isEqualTo("Too many values built");
    assertThat(d.range().line()).isEqualTo(6);
  }

  @Test
  void aPlanWithinItsLimitsIsUnaffected() {
    PlanResult result =
        plan(
            """
            resource "stateful_provisioning" "web" {
              count     = 10000
              state_key = "v1-${count.index}"
            }
            """,
            PlanLimits.DEFAULT);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().actions()).hasSize(10000);
  }
}
