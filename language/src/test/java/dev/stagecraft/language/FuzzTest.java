package dev.stagecraft.language;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Random and mutated inputs never make the parser, loader or evaluator throw. */
class FuzzTest {
  private static final String CORPUS =
      """
      variable "x" { default = [1, 2.5e3, "s\\n${a}", true, null] }
      locals {
        o = { a = 1, "b" : 2, (var.k) = [for i, v in var.xs : v if i > 0] }
        m = {for k, v in var.m : v => k...}
        t = "%{ if var.c }yes%{ else }no%{ endif } %{~ for x in var.xs ~} ${x} %{ endfor }"
        h = <<-EOT
          hi ${upper(var.name)}
          EOT
        s = stateful_provisioning.app[*].id
        l = stateful_provisioning.app.*.id
        i = stateful_provisioning.app[0].id
        f = format("%s-%d", var.a, -1 + 2 * 3 % 4 / 5) == "x" ? !true : false || true && 1 < 2
        e = join(",", var.xs...)
      }
      resource "stateful_provisioning" "app" {
        state_key = "${var.x}" // comment
        provisioner "local-exec" { command = "echo" }
        /* block */
        connection {
          type = "ssh"
        }
      }
      """;

  private static final String ALPHABET = "{}[]()\"'$%~<>=!?:.,*+-/#\n\t abcxyz019_\\${";

  @Test
  void parserLoaderAndEvaluatorNeverThrowOnRandomOrMutatedInput() {
    Random rnd = new Random(20240506L);
    Evaluator evaluator = new Evaluator();
    SimpleEvalContext ctx =
        SimpleEvalContext.empty()
            .withVariable("xs", Value.of(List.of("a", "b")))
            .withVariable("m", Value.of(Map.of("k", "v")))
            .withVariable("name", Value.string("n"));
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    int cases = 0;
    for (; cases < 4000 && System.nanoTime() < deadline; cases++) {
      String input = cases % 3 == 0 ? random(rnd) : mutate(rnd, CORPUS);
      ParseResult pr = Parser.parse("fuzz.tf", input);
      assertThat(pr.body()).isNotNull();
      LoadResult lr = ConfigLoader.load(Map.of("fuzz.tf", input));
      assertThat(lr.config()).isNotNull();
      String exprText = input.substring(0, Math.min(input.length(), rnd.nextInt(200)));
      ExpressionResult er = Parser.parseExpression("fuzz.tf", exprText);
      if (er.expression() != null) {
        er.expression().traversals();
        EvalResult ev = evaluator.evaluate(er.expression(), ctx);
        assertThat(ev.value()).isNotNull();
        assertThat(ev.diagnostics().list()).noneMatch(d -> d.summary().startsWith("Internal"));
      }
      assertThat(pr.diagnostics().list()).noneMatch(d -> d.summary().startsWith("Internal"));
    }
    assertThat(cases).isGreaterThan(500);
  }

  @Test
  void deeplyNestedInputIsReportedNotAStackOverflow() {
    String deep = "x = " + "(".repeat(5000) + "1" + ")".repeat(5000) + "\n";
    ParseResult r = Parser.parse("deep.tf", deep);
    assertThat(r.diagnostics().errors()).extracting(d -> d.summary()).contains("Nesting too deep");
    String blocks = "a {\n".repeat(3000);
    assertThat(Parser.parse("deep.tf", blocks).diagnostics().hasErrors()).isTrue();
  }

  private static String random(Random rnd) {
    int len = rnd.nextInt(120);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < len; i++) {
      sb.append(ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }

  private static String mutate(Random rnd, String base) {
    StringBuilder sb = new StringBuilder(base);
    int edits = 1 + rnd.nextInt(6);
    for (int e = 0; e < edits && sb.length() > 0; e++) {
      int at = rnd.nextInt(sb.length());
      switch (rnd.nextInt(4)) {
        case 0 -> sb.deleteCharAt(at);
        case 1 -> sb.insert(at, ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
        case 2 -> sb.setCharAt(at, ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
        default -> {
          int end = Math.min(sb.length(), at + rnd.nextInt(30));
          sb.delete(at, end);
        }
      }
    }
    return sb.toString();
  }
}
