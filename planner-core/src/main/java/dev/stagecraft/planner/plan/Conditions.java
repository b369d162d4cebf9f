package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.Value;
import java.util.List;

/**
 * {@code precondition} and {@code postcondition} blocks checked against an evaluation context, at
 * plan time or (for those not known then) at apply time. A failed condition is an error with its
 * {@code error_message} — never a sensitive one, as in Terraform: a message that refers to a
 * sensitive value (of a variable, or a value the state holds sensitive) is replaced by a notice and
 * an error at the message says why.
 */
final class Conditions {
  static final String SENSITIVE_MESSAGE =
      "The error message included a sensitive value, so it will not be displayed.";
  private static final Evaluator EVALUATOR = new Evaluator();

  private Conditions() {}

  /**
   * Checks {@code conditions}; a false one adds an error with its {@code error_message} and the
   * address, an unknown one is skipped (and reported by the return value).
   *
   * @param kind {@code precondition} or {@code postcondition}
   * @return true when every condition was known
   */
  static boolean check(
      List<Lifecycle.Condition> conditions,
      String kind,
      String address,
      EvalContext ctx,
      Diagnostics diagnostics) {
    boolean allKnown = true;
    for (Lifecycle.Condition c : conditions) {
      EvalResult result = EVALUATOR.evaluate(c.condition(), ctx);
      if (result.hasErrors()) {
        diagnostics.addAll(result.diagnostics());
        continue;
      }
      Value value = result.value();
      if (!value.isWhollyKnown()) {
        allKnown = false;
        continue;
      }
      // a condition may test a sensitive value (as in Terraform): only its outcome is shown
      boolean holds = !value.isNull() && "true".equals(value.unmarkDeep().asString().toLowerCase());
      if (!holds) {
        diagnostics.error(
            "Resource " + kind + " failed",
            errorMessage(c, ctx, diagnostics)
                + "\n\nThis was checked by the "
                + kind
                + " of "
                + address
                + ".",
            c.condition().range());
      }
    }
    return allKnown;
  }

  static String errorMessage(Lifecycle.Condition c, EvalContext ctx, Diagnostics diagnostics) {
    EvalResult message = EVALUATOR.evaluate(c.errorMessage(), ctx);
    if (message.hasErrors() || !message.value().isWhollyKnown()) {
      return "(error message could not be evaluated)";
    }
    if (message.value().containsSensitive()) {
      diagnostics.error(
          "Error message refers to sensitive values",
          "The error expression used to explain this condition refers to sensitive values, so"
              + " Stagecraft will not display the resulting message. Remove the references to"
              + " sensitive values from error_message, or, for a sensitive variable, use"
              + " nonsensitive() carefully where the result does not reveal the secret.",
          c.errorMessage().range());
      return SENSITIVE_MESSAGE;
    }
    return message.value().unmarkDeep().asString().strip();
  }
}
