package dev.stagecraft.language.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvaluatorTest {
  private final Evaluator evaluator = new Evaluator();
  private SimpleEvalContext ctx =
      SimpleEvalContext.empty()
          .withVariable("name", Value.string("web"))
          .withVariable("n", Value.number(3))
          .withVariable("xs", Value.of(List.of("a", "b", "c")))
          .withVariable("m", Value.of(Map.of("k1", "v1", "k2", "v2")))
          .withVariable("secret", Value.string("hunter2").mark(true))
          .withVariable("flag", Value.string("true"))
          .withAttribute(
              "stateful_provisioning",
              "app",
              Value.of(List.of(Map.of("id", "i-1"), Map.of("id", "i-2"))))
          .withAttribute("stateful_provisioning", "new", Value.of(Map.of("id", Value.unknown())))
          .withRoot("count", Value.of(Map.of("index", 1)));

  private EvalResult eval(String text) {
    ExpressionResult r = Parser.parseExpression("expr.tf", text);
    assertThat(r.diagnostics().list()).as("parse diagnostics").isEmpty();
    return evaluator.evaluate(r.expression(), ctx);
  }

  private Object ok(String text) {
    EvalResult r = eval(text);
    assertThat(r.diagnostics().list()).as("diagnostics of %s", text).isEmpty();
    return r.value().toJava();
  }

  private Diagnostic err(String text) {
    EvalResult r = eval(text);
    assertThat(r.diagnostics().errors()).as("errors of %s", text).isNotEmpty();
    return r.diagnostics().errors().get(0);
  }

  private static BigDecimal n(String s) {
    return new BigDecimal(s);
  }

  @Test
  void rendersTemplatesConvertingNumbersAndBools() {
    assertThat(ok("\"${var.name}-${var.n}-${true}-${1.50}\"")).isEqualTo("web-3-true-1.5");
    assertThat(ok("\"%{ if var.n > 2 }big%{ else }small%{ endif }\"")).isEqualTo("big");
    assertThat(ok("\"%{ for i, x in var.xs }${i}=${x};%{ endfor }\"")).isEqualTo("0=a;1=b;2=c;");
    assertThat(ok("\"${var.xs}\"")).isEqualTo(List.of("a", "b", "c"));
  }

  @Test
  void evaluatesHeredocsWithInterpolation() {
    ExpressionResult r = Parser.parseExpression("e.tf", "<<-EOT\n  hi ${var.name}\n  EOT\n");
    assertThat(evaluator.evaluate(r.expression(), ctx).value().asString()).isEqualTo("hi web\n");
  }

  @Test
  void evaluatesArithmeticComparisonAndLogicWithPrecedence() {
    assertThat(ok("1 + 2 * 3")).isEqualTo(n("7"));
    assertThat((BigDecimal) ok("10 / 4")).isEqualByComparingTo("2.5");
    assertThat((BigDecimal) ok("10 % 4")).isEqualByComparingTo("2");
    assertThat(ok("-var.n + \"5\"")).isEqualTo(n("2"));
    assertThat(ok("1 < 2 && 2 >= 2 || false")).isEqualTo(true);
    assertThat(ok("!var.flag")).isEqualTo(false);
    assertThat(ok("[1, \"a\"] == [1, \"a\"]")).isEqualTo(true);
    assertThat(ok("1 == \"1\"")).isEqualTo(false);
    assertThat(ok("var.n != 3 ? \"x\" : \"y\"")).isEqualTo("y");
  }

  @Test
  void evaluatesIndexesSplatsAndForExpressions() {
    assertThat(ok("stateful_provisioning.app[0].id")).isEqualTo("i-1");
    assertThat(ok("stateful_provisioning.app.1.id")).isEqualTo("i-2");
    assertThat(ok("stateful_provisioning.app[count.index].id")).isEqualTo("i-2");
    assertThat(ok("stateful_provisioning.app[*].id")).isEqualTo(List.of("i-1", "i-2"));
    assertThat(ok("stateful_provisioning.app.*.id")).isEqualTo(List.of("i-1", "i-2"));
    assertThat(ok("var.m[\"k2\"]")).isEqualTo("v2");
    assertThat(ok("[for x in var.xs : upper(x) if x != \"b\"]")).isEqualTo(List.of("A", "C"));
    assertThat(ok("{for k, v in var.m : v => k}")).isEqualTo(Map.of("v1", "k1", "v2", "k2"));
    assertThat(ok("{for x in [\"a\", \"ab\", \"b\"] : substr(x, 0, 1) => x...}"))
        .isEqualTo(Map.of("a", List.of("a", "ab"), "b", List.of("b")));
    assertThat(ok("{ a = 1, \"b\" : 2, (var.name) = 3 }"))
        .isEqualTo(Map.of("a", n("1"), "b", n("2"), "web", n("3")));
  }

  @Test
  void propagatesUnknownThroughOperationsAndTemplates() {
    EvalResult r = eval("\"id=${stateful_provisioning.new.id}\"");
    assertThat(r.diagnostics().list()).isEmpty();
    assertThat(r.value().isKnown()).isFalse();
    assertThat(r.value().render()).isEqualTo("(known after apply)");
    assertThat(eval("stateful_provisioning.new.id + 1").value().isKnown()).isFalse();
    assertThat(eval("upper(stateful_provisioning.new.id)").value().isKnown()).isFalse();
    assertThat(eval("stateful_provisioning.new.id == \"x\" ? 1 : 2").value().isKnown()).isFalse();
    Value list = eval("[stateful_provisioning.new.id, 1]").value();
    assertThat(list.isKnown()).isTrue();
    assertThat(list.isWhollyKnown()).isFalse();
    assertThat(ok("length([stateful_provisioning.new.id, 1])")).isEqualTo(n("2"));
  }

  @Test
  void propagatesSensitiveMarksAndRedactsThem() {
    Value v = eval("\"pw=${var.secret}\"").value();
    assertThat(v.isSensitive()).isTrue();
    assertThat(v.asString()).isEqualTo("pw=hunter2");
    assertThat(v.render()).isEqualTo("(sensitive value)");
    assertThat(eval("upper(var.secret)").value().isSensitive()).isTrue();
    assertThat(eval("length(var.secret) + 1").value().isSensitive()).isTrue();
    assertThat(eval("[var.secret]").value().containsSensitive()).isTrue();
    assertThat(eval("nonsensitive(var.secret)").value().isSensitive()).isFalse();
    assertThat(eval("sensitive(\"x\")").value().isSensitive()).isTrue();
  }

  @Test
  void noDiagnosticQuotesASensitiveValue() {
    // each of these errors quotes the offending value when it is not sensitive
    List<String> failing =
        List.of(
            "var.secret + 1",
            "!var.secret",
            "[1, 2][var.secret]",
            "{ a = 1 }[var.secret]",
            "{ for x in [var.secret, var.secret] : x => 1 }",
            "parseint(var.secret, 10)",
            "cidrhost(var.secret, 1)",
            "base64decode(var.secret)",
            "sensitive({ (var.secret) = 1 }).b");
    for (String expression : failing) {
      EvalResult r = eval(expression);
      assertThat(r.diagnostics().errors()).as(expression).isNotEmpty();
      assertThat(r.diagnostics().list())
          .as(expression)
          .allSatisfy(d -> assertThat(d.summary() + d.detail()).doesNotContain("hunter2"));
    }
    assertThat(err("parseint(var.secret, 10)").detail())
        .isEqualTo(
            "Invalid value for argument 1 of parseint(): an argument is sensitive, so the"
                + " reason, which may quote its value, is not shown.");
    // the same mistakes with plain values still say what was wrong
    assertThat(err("\"abc\" + 1").detail()).contains("\"abc\"");
    assertThat(err("parseint(\"zz\", 10)").detail()).contains("\"zz\"");
    assertThat(err("{ a = 1 }[\"b\"]").detail()).contains("\"b\"");
  }

  @Test
  void copiedMarksLandAtTheSamePathsWithTheSameKind() {
    Value planned =
        Value.of(Map.of("a", "x", "m", Map.of("pw", "p", "plain", "q"), "l", List.of("0", "1")))
            .markedAt(List.of("m", "pw"))
            .markedFromStateAt(List.of("a"))
            .markedAt(List.of("l", 1));
    Value plain =
        Value.of(
            Map.of(
                "a",
                "x",
                "m",
                Map.of("pw", "p", "plain", "q"),
                "l",
                List.of("0", "1"),
                "id",
                "i-1"));

    Value.ObjectValue o = (Value.ObjectValue) planned.copyMarksTo(plain);

    assertThat(o.get("a").isFromState()).isTrue();
    Value.ObjectValue m = (Value.ObjectValue) o.get("m");
    assertThat(m.get("pw").isSensitive()).isTrue();
    assertThat(m.get("pw").isFromState()).isFalse();
    assertThat(m.get("plain").isSensitive()).isFalse();
    assertThat(((Value.ListValue) o.get("l")).elements().get(1).isSensitive()).isTrue();
    assertThat(o.get("id").isSensitive()).isFalse();
    assertThat(planned.mark(true).copyMarksTo(Value.of(Map.of("z", "1"))).isSensitive()).isTrue();
  }

  @Test
  void aValueMarkedByTheStateKeepsThatMarkThroughEveryOperation() {
    ctx =
        ctx.withVariable(
            "held",
            Value.of(Map.of("pw", "s3cret", "n", 41, "plain", "p"))
                .markedFromStateAt(List.of("pw"))
                .markedFromStateAt(List.of("n")));
    List<String> derived =
        List.of(
            "var.held.pw",
            "upper(var.held.pw)",
            "\"x-${var.held.pw}\"",
            "\"%{ if var.held.n > 1 }a%{ endif }\"",
            "var.held.n + 1",
            "-var.held.n",
            "var.held.n == 41",
            "[var.held.pw][0]",
            "{ k = var.held.pw }.k",
            "var.held.n > 1 ? \"a\" : \"b\"",
            "[for x in [var.held.pw] : upper(x)][0]",
            "[var.held][*].pw",
            "jsonencode(var.held)",
            "sensitive(var.held.pw)",
            "nonsensitive(var.secret) == \"\" ? \"\" : var.held.pw");
    for (String expression : derived) {
      EvalResult r = eval(expression);
      assertThat(r.diagnostics().list()).as(expression).isEmpty();
      assertThat(r.value().containsFromState()).as(expression).isTrue();
    }
    assertThat(eval("var.held.plain").value().isSensitive()).isFalse();
  }

  @Test
  void nonsensitiveCannotRemoveTheStatesMark() {
    ctx = ctx.withVariable("held", Value.string("s3cret").markFromState());

    for (String expression :
        List.of(
            "nonsensitive(var.held)",
            "nonsensitive(upper(var.held))",
            "nonsensitive([var.held])")) {
      Diagnostic d = err(expression);
      assertThat(d.summary()).isEqualTo("Invalid function argument");
      assertThat(d.detail())
          .as(expression)
          .startsWith(
              "Invalid value for argument 1 of nonsensitive(): the value is (or is computed"
                  + " from) a value the workspace's state holds sensitive")
          .doesNotContain("s3cret");
    }
    // a sensitive variable's mark can still be removed, as in Terraform
    assertThat(eval("nonsensitive(var.secret)").value().isSensitive()).isFalse();
  }

  @Test
  void callsStringCollectionAndEncodingFunctions() {
    assertThat(ok("format(\"%s-%03d-%.2f-%q-%v\", \"a\", 7, 3.14159, \"q\", true)"))
        .isEqualTo("a-007-3.14-\"q\"-true");
    assertThat(ok("join(\",\", split(\"-\", \"a-b-c\"))")).isEqualTo("a,b,c");
    assertThat(ok("replace(\"hello world\", \"/o(.)/\", \"0$1\")")).isEqualTo("hell0 w0rld");
    assertThat(ok("replace(\"a.b\", \".\", \"_\")")).isEqualTo("a_b");
    assertThat(ok("trimspace(\"  x \\n\")")).isEqualTo("x");
    assertThat(ok("lower(\"AB\")")).isEqualTo("ab");
    assertThat(ok("length(var.m)")).isEqualTo(n("2"));
    assertThat(ok("concat([1], [2, 3])")).isEqualTo(List.of(n("1"), n("2"), n("3")));
    assertThat(ok("contains(var.xs, \"b\")")).isEqualTo(true);
    assertThat(ok("keys(var.m)")).isEqualTo(List.of("k1", "k2"));
    assertThat(ok("values(var.m)")).isEqualTo(List.of("v1", "v2"));
    assertThat(ok("lookup(var.m, \"zz\", \"d\")")).isEqualTo("d");
    assertThat(ok("merge(var.m, {k1 = \"x\"})")).isEqualTo(Map.of("k1", "x", "k2", "v2"));
    assertThat(ok("element(var.xs, 4)")).isEqualTo("b");
    assertThat(ok("range(3)")).isEqualTo(List.of(n("0"), n("1"), n("2")));
    assertThat(ok("tostring(5)")).isEqualTo("5");
    assertThat(ok("tonumber(\"5\") + 1")).isEqualTo(n("6"));
    assertThat(ok("tobool(\"false\")")).isEqualTo(false);
    assertThat(ok("tolist(var.xs)")).isEqualTo(List.of("a", "b", "c"));
    assertThat(ok("tomap({a = 1})")).isEqualTo(Map.of("a", n("1")));
    assertThat(ok("jsonencode({b = [1, true, null], a = \"x\"})"))
        .isEqualTo("{\"a\":\"x\",\"b\":[1,true,null]}");
    assertThat(ok("jsondecode(\"{\\\"a\\\": [1.5, false]}\")"))
        .isEqualTo(Map.of("a", List.of(n("1.5"), false)));
    assertThat(ok("base64decode(base64encode(\"héllo\"))")).isEqualTo("héllo");
    assertThat(ok("sha256(\"abc\")"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(ok("md5(\"abc\")")).isEqualTo("900150983cd24fb0d6963f7d28e17f72");
    assertThat(ok("sha1(\"abc\")")).isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    assertThat(ok("min(3, 1, 2) + max(1, 5) + abs(-2)")).isEqualTo(n("8"));
    assertThat(ok("coalesce(null, \"\", \"x\")")).isEqualTo("x");
    assertThat(ok("max([1, 5, 2]...)")).isEqualTo(n("5"));
  }

  @Test
  void tryAndCanCatchEvaluationErrors() {
    assertThat(ok("try(var.m.missing, \"fallback\")")).isEqualTo("fallback");
    assertThat(ok("can(var.xs[10])")).isEqualTo(false);
    assertThat(ok("can(var.xs[0])")).isEqualTo(true);
    assertThat(err("try(var.m.missing, var.xs[9])").summary())
        .isEqualTo("Invalid function argument");
  }

  @Test
  void readsFilesRelativeToTheBaseDirectoryAndUsesInjectedClockAndIds(@TempDir Path dir)
      throws Exception {
    Files.writeString(dir.resolve("hello.txt"), "hi");
    ctx =
        ctx.withBaseDirectory(dir)
            .withClock(Clock.fixed(Instant.parse("2024-05-06T07:08:09.123Z"), ZoneOffset.UTC))
            .withUuids(() -> UUID.fromString("00000000-0000-0000-0000-000000000001"));
    assertThat(ok("file(\"hello.txt\")")).isEqualTo("hi");
    assertThat(ok("fileexists(\"hello.txt\")")).isEqualTo(true);
    assertThat(ok("fileexists(\"nope.txt\")")).isEqualTo(false);
    assertThat(ok("filemd5(\"hello.txt\")")).isEqualTo("49f68a5c8493ec2c0bf489821c21fc3b");
    assertThat(ok("filesha256(\"hello.txt\")"))
        .isEqualTo("8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4");
    assertThat(ok("timestamp()")).isEqualTo("2024-05-06T07:08:09Z");
    assertThat(ok("uuid()")).isEqualTo("00000000-0000-0000-0000-000000000001");
    Diagnostic d = err("file(\"nope.txt\")");
    assertThat(d.detail()).contains("no file exists at \"nope.txt\"");
    assertThat(d.range().toString()).isEqualTo("expr.tf:1:6");
  }

  @Test
  void reportsEvaluationErrorsWithRanges() {
    Diagnostic undeclared = err("var.nope");
    assertThat(undeclared.summary()).isEqualTo("Reference to undeclared input variable");
    assertThat(undeclared.range().toString()).isEqualTo("expr.tf:1:1");
    assertThat(err("stateful_provisioning.other.id").summary())
        .isEqualTo("Reference to undeclared resource");
    assertThat(err("foo").summary()).isEqualTo("Unknown variable");
    assertThat(err("var.m.nope").summary()).isEqualTo("Unsupported attribute");
    Diagnostic oob = err("var.xs[5]");
    assertThat(oob.summary()).isEqualTo("Invalid index");
    assertThat(oob.detail()).contains("out of range");
    Diagnostic div = err("1 / (var.n - 3)");
    assertThat(div.summary()).isEqualTo("Division by zero");
    assertThat(div.range().toString()).isEqualTo("expr.tf:1:5");
    Diagnostic type = err("1 + \"a\"");
    assertThat(type.summary()).isEqualTo("Invalid operand");
    assertThat(type.range().toString()).isEqualTo("expr.tf:1:5");
    assertThat(err("upper(\"a\", \"b\")").summary()).isEqualTo("Too many function arguments");
    assertThat(err("lookup(var.m)").summary()).isEqualTo("Not enough function arguments");
    assertThat(err("nosuch(1)").summary()).isEqualTo("Call to unknown function");
    assertThat(err("\"${var.xs}x\"").summary()).isEqualTo("Invalid template interpolation value");
    assertThat(err("\"a${null}\"").summary()).isEqualTo("Invalid template interpolation value");
    assertThat(err("tonumber(\"abc\")").detail()).contains("cannot convert");
    assertThat(err("var.xs.name").detail()).contains("list of objects");
  }

  @Test
  void namespacedFunctionsOtherThanCoreAreUnknownFunctionsWithTheirPosition() {
    Diagnostic d = err("1 + provider::terraform::encode_tfvars({})");
    assertThat(d.summary()).isEqualTo("Call to unknown function");
    assertThat(d.detail()).contains("\"provider::terraform::encode_tfvars\"");
    assertThat(d.range().toString()).isEqualTo("expr.tf:1:5");
    assertThat(d.range().end().column()).isEqualTo(39);
    // the built-in functions are also reachable with Terraform's core:: prefix
    assertThat(ok("core::upper(var.name)")).isEqualTo("WEB");
    assertThat(ok("core::try(var.nosuch, \"fallback\")")).isEqualTo("fallback");
    assertThat(err("core::nosuch(1)").summary()).isEqualTo("Call to unknown function");
  }

  @Test
  void stripMarkersThatEmptyEveryLiteralStillMakeAStringTemplate() {
    assertThat(ok("\" ${~1~} \"")).isEqualTo("1");
    assertThat(ok("\"${~1~}\"")).isEqualTo(n("1"));
    assertThat(err("\" ${~ var.xs ~} \"").summary())
        .isEqualTo("Invalid template interpolation value");
    assertThat(ok("\"${~ var.xs ~}\"")).isEqualTo(List.of("a", "b", "c"));
  }

  @Test
  void convertsJavaValuesBothWays() {
    Value v = Value.of(Map.of("a", List.of(1, "x", true), "b", Map.of()));
    assertThat(v.toJava()).isEqualTo(Map.of("a", List.of(n("1"), "x", true), "b", Map.of()));
    assertThat(Value.of(2.5).asString()).isEqualTo("2.5");
    assertThat(Value.number(new BigDecimal("1.500")).asString()).isEqualTo("1.5");
    assertThat(Value.of(null).isNull()).isTrue();
  }
}
