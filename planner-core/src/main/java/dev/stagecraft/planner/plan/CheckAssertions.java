package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.CheckDecl;
import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.Severity;
import dev.stagecraft.language.eval.Conversions;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Evaluates {@code check} blocks as Terraform does ({@code internal/terraform/eval_conditions.go},
 * {@code node_check.go}): after planning, against the planned values, and again after a successful
 * apply, against the applied ones. A false assertion is a warning ("Check block assertion failed",
 * with its {@code error_message}), never an error: it stops neither the plan nor the apply. An
 * assertion unknown at plan time is a warning too ("Check block assertion known after apply") and
 * is decided after apply. A condition that cannot be evaluated, or is null or not a bool, is a
 * configuration error at plan time, as in Terraform; after apply, when nothing can be stopped any
 * more, every diagnostic is a warning. Stateless.
 */
public final class CheckAssertions {
  public static final String FAILED = "Check block assertion failed";
  public static final String KNOWN_AFTER_APPLY = "Check block assertion known after apply";
  private static final Evaluator EVALUATOR = new Evaluator();

  private CheckAssertions() {}

  /** Whether {@code d} is a check's result (its failure or its unknown outcome). */
  public static boolean isCheckResult(Diagnostic d) {
    return !d.isError() && (FAILED.equals(d.summary()) || KNOWN_AFTER_APPLY.equals(d.summary()));
  }

  /**
   * Evaluates every check against {@code ctx} and adds its diagnostics (see the class comment).
   *
   * @param afterApply false at plan time, true after a successful apply
   */
  static List<CheckResult> evaluate(
      List<CheckDecl> checks, EvalContext ctx, boolean afterApply, Diagnostics diagnostics) {
    List<CheckResult> results = new ArrayList<>();
    for (CheckDecl check : checks) {
      Diagnostics problems = new Diagnostics();
      List<CheckResult.Assertion> assertions = new ArrayList<>();
      for (CheckDecl.Assertion a : check.asserts()) {
        assertions.add(assertion(check, a, ctx, problems));
      }
      CheckResult result = new CheckResult(check.name(), assertions);
      results.add(result);
      if (afterApply) {
        problems.list().forEach(d -> diagnostics.add(asWarning(d)));
      } else {
        diagnostics.addAll(problems);
      }
      result.warnings(afterApply).forEach(diagnostics::add);
    }
    return results;
  }

  private static CheckResult.Assertion assertion(
      CheckDecl check, CheckDecl.Assertion a, EvalContext ctx, Diagnostics problems) {
    EvalResult result = EVALUATOR.evaluate(a.condition(), ctx);
    if (result.hasErrors()) {
      problems.addAll(result.diagnostics());
      return new CheckResult.Assertion(CheckResult.Status.ERROR, null, a.condition().range());
    }
    Value value = result.value();
    if (!value.isWhollyKnown()) {
      return new CheckResult.Assertion(CheckResult.Status.UNKNOWN, null, a.condition().range());
    }
    Optional<Boolean> holds =
        value.isNull() ? Optional.empty() : Conversions.toBool(value.unmarkDeep());
    if (holds.isEmpty()) {
      problems.error(
          "Invalid condition result",
          value.isNull()
              ? "Condition expression must return either true or false, not null."
              : "Invalid condition result value: a bool is required. The condition of "
                  + check.address()
                  + " must be true or false.",
          a.condition().range());
      return new CheckResult.Assertion(CheckResult.Status.ERROR, null, a.condition().range());
    }
    if (holds.get()) {
      return new CheckResult.Assertion(CheckResult.Status.PASS, null, a.condition().range());
    }
    String message =
        Conditions.errorMessage(
            new Lifecycle.Condition(a.condition(), a.errorMessage(), a.range()), ctx, problems);
    return new CheckResult.Assertion(CheckResult.Status.FAIL, message, a.condition().range());
  }

  private static Diagnostic asWarning(Diagnostic d) {
    return new Diagnostic(Severity.WARNING, d.summary(), d.detail(), d.range());
  }
}
