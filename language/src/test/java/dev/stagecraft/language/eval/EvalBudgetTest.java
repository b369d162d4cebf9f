package dev.stagecraft.language.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every budget of an evaluation (docs/planning.md "Budgets"): each exceeded one is an error naming
 * the limit, at the expression where it was hit, reached before the memory or time is spent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EvalBudgetTest {
  static final EvalBudget.Limits SMALL =
      new EvalBudget.Limits(1_000, 5_000, 10_000, Duration.ofSeconds(60));

  private static EvalResult eval(String text, EvalBudget budget) {
    ExpressionResult r = Parser.parseExpression("main.tf", text);
    assertThat(r.diagnostics().list()).as("parse diagnostics of %s", text).isEmpty();
    SimpleEvalContext ctx =
        SimpleEvalContext.empty()
            .withBudget(budget)
            .withLocal(
                "r",
                Value.list(
                    java.util.stream.IntStream.range(0, 1024)
                        .mapToObj(i -> (Value) Value.number(i))
                        .toList()))
            .withLocal("hundred", Value.string("x".repeat(100)));
    return new Evaluator().evaluate(r.expression(), ctx);
  }

  private static Diagnostic error(String text, EvalBudget.Limits limits) {
    EvalResult r = eval(text, EvalBudget.start(limits));
    assertThat(r.diagnostics().errors()).as("errors of %s", text).hasSize(1);
    return r.diagnostics().errors().get(0);
  }

  @Test
  void aStringOverTheLimitIsRefusedBeforeItIsBuilt() {
    Diagnostic join = error("join(\"\", [for i in range(20) : local.hundred])", SMALL);
    assertThat(join.summary()).isEqualTo("String too long");
    assertThat(join.detail())
        .contains("join()")
        .contains("above the limit of 1000 characters per string");
    assertThat(join.range()).hasToString("main.tf:1:1");
    Diagnostic template =
        error("\"${local.hundred}\" == \"%{for i in local.r}${i}%{endfor}\"", SMALL);
    assertThat(template.detail()).contains("this template").contains("limit of 1000 characters");
    assertThat(template.range()).hasToString("main.tf:1:23");
    // the default limit (16 MiB) stops these before a gigabyte is allocated
    EvalBudget.Limits standard = EvalBudget.Limits.DEFAULT;
    assertThat(error("indent(1000000000, \"a\\nb\")", standard).detail())
        .contains("indent() would be 1000000003 characters long")
        .contains("limit of 16777216 characters (16 MiB)");
    assertThat(error("format(\"%999999999d\", 1)", standard).detail()).contains("format()");
    assertThat(error("format(\"%.999999999f\", 1)", standard).detail()).contains("format()");
    assertThat(
            error(
                    "jsonencode([for i in local.r : join(\"\", [for j in range(200) : local.hundred])])",
                    standard)
                .detail())
        .contains("jsonencode()");
    assertThat(error("replace(local.hundred, \"\", local.hundred)", SMALL).detail())
        .contains("replace()");
  }

  @Test
  void allTextBuiltTogetherHasALimit() {
    Diagnostic d = error("[for i in range(60) : \"${local.hundred}!\"]", SMALL);
    assertThat(d.summary()).isEqualTo("Too much text built");
    assertThat(d.detail()).contains("more than 5000 characters").contains("this template");
  }

  @Test
  void collectionsBuiltHaveALimitThatNestedForExpressionsReach() {
    Diagnostic nested =
        error(
            "[for a in local.r : [for b in local.r : [for c in local.r : c]]]",
            EvalBudget.Limits.DEFAULT);
    assertThat(nested.summary()).isEqualTo("Too many values built");
    assertThat(nested.detail())
        .contains("more than 4000000 collection elements")
        .contains("this for expression");
    assertThat(nested.range()).hasToString("main.tf:1:41");
    Diagnostic product = error("setproduct(local.r, local.r, local.r)", EvalBudget.Limits.DEFAULT);
    assertThat(product.detail()).contains("setproduct()");
  }

  @Test
  void aYamlAliasBombStopsAtTheElementLimit() {
    StringBuilder yaml = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 9; i++) {
      yaml.append("a").append(i).append(": &a").append(i).append(" [");
      yaml.append(("*a" + (i - 1) + ", ").repeat(9)).append("*a").append(i - 1).append("]\n");
    }
    Diagnostic d =
        error("yamldecode(" + Json.quote(yaml.toString()) + ")", EvalBudget.Limits.DEFAULT);
    assertThat(d.summary()).isEqualTo("Too many values built");
    assertThat(d.detail()).contains("yamldecode()");
  }

  @Test
  void theDeadlineStopsAnEvaluationThatWouldRunForMinutes() {
    // a billion iterations that build nothing: only the deadline can stop them
    String slow =
        "[for a in local.r : a if length([for b in local.r : b"
            + " if length([for c in local.r : c if c < 0]) > 0]) > 0]";
    Diagnostic d = error(slow, EvalBudget.Limits.DEFAULT.withTimeLimit(Duration.ofSeconds(1)));
    assertThat(d.summary()).isEqualTo("Evaluation deadline exceeded");
    assertThat(d.detail()).contains("the limit of 1 s per plan");
    assertThat(d.range().file()).isEqualTo("main.tf");
  }

  @Test
  void aSpentBudgetIsNotCaughtByTryOrCanAndStopsLaterEvaluations() {
    EvalBudget budget = EvalBudget.start(SMALL);
    EvalResult r = eval("can([for i in range(20) : [for j in range(1000) : j]])", budget);
    assertThat(r.diagnostics().errors())
        .singleElement()
        .satisfies(d -> assertThat(d.summary()).isEqualTo("Too many values built"));
    assertThat(budget.spent()).isPresent();
    EvalResult next = eval("try(1 + 1, 0)", budget);
    assertThat(next.diagnostics().errors())
        .singleElement()
        .satisfies(d -> assertThat(d.summary()).isEqualTo("Too many values built"));
  }

  @Test
  void hugeNumbersNeitherHangNorExhaustMemory() {
    EvalResult r = eval("\"${1e999999999 + 1}\"", EvalBudget.start(EvalBudget.Limits.DEFAULT));
    assertThat(r.diagnostics().list()).isEmpty();
    assertThat(r.value().asString()).isEqualTo("1E+999999999");
    assertThat(eval("0.1 + 0.2", EvalBudget.start(SMALL)).value().asString()).isEqualTo("0.3");
  }

  @Test
  void withoutABudgetEachEvaluationGetsTheDefaultOne() {
    ExpressionResult r =
        Parser.parseExpression("main.tf", "setproduct(range(1024), range(1024), range(1024))");
    EvalResult result = new Evaluator().evaluate(r.expression(), SimpleEvalContext.empty());
    assertThat(result.diagnostics().errors())
        .singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("4000000"));
  }
}
