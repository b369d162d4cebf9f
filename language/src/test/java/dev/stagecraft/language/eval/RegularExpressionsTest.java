package dev.stagecraft.language.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * regex, regexall, replace and fileset match with Go's RE2 (RE2/J): in time linear in the input
 * whatever the pattern, and with RE2's meaning where java.util.regex differs (docs/adr/0061).
 */
class RegularExpressionsTest {
  @TempDir Path dir;

  /** Evaluated within a budget of two seconds: an error names it if the match took longer. */
  private EvalResult eval(String text) {
    ExpressionResult r = Parser.parseExpression("main.tf", text);
    assertThat(r.diagnostics().list()).as("parse diagnostics of %s", text).isEmpty();
    EvalBudget budget =
        EvalBudget.start(EvalBudget.Limits.DEFAULT.withTimeLimit(Duration.ofSeconds(2)));
    return new Evaluator()
        .evaluate(
            r.expression(),
            SimpleEvalContext.empty()
                .withBaseDirectory(dir)
                .withBudget(budget)
                .withVariable("long", Value.string("a".repeat(50_000) + "b")));
  }

  private String json(String text) {
    EvalResult r = eval(text);
    assertThat(r.diagnostics().list()).as("diagnostics of %s", text).isEmpty();
    return Json.encode(r.value());
  }

  private String error(String text) {
    EvalResult r = eval(text);
    assertThat(r.diagnostics().errors()).as("errors of %s", text).isNotEmpty();
    return r.diagnostics().errors().get(0).detail();
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void catastrophicBacktrackingPatternsFinishWithinTheBudget() {
    // with a backtracking engine each of these takes longer than the age of the universe
    assertThat(error("regex(\"^(a+)+$\", var.long)")).contains("did not match");
    assertThat(json("length(regexall(\"(a|aa)+c\", var.long))")).isEqualTo("0");
    assertThat(json("length(replace(var.long, \"/(a*)*c/\", \"x\"))")).isEqualTo("50001");
    assertThat(json("regex(\"(?:x+x+)+y|b\", var.long)")).isEqualTo("\"b\"");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // POSIX classes are RE2 syntax; java.util.regex reads [[:alpha:]] as the set ":alph"
        "regex(\"[[:alpha:]]+\", \"123abc456\")|\"abc\"",
        // $ is the end of the text, not also before a final newline
        "length(regexall(\"a$\", \"a\\n\"))|0",
        // an empty match right after another match is not a match (Go's rule)
        "length(regexall(\"a*\", \"baaac\"))|3",
        "replace(\"baaac\", \"/a*/\", \"-\")|\"-b-c-\"",
        // Go's expansion: $1x names the group \"1x\" (none, so empty); ${1}x (written $${1}x in
        // a string, where ${ starts an interpolation) is group 1 then x
        "replace(\"abc\", \"/(b)/\", \"$1x\")|\"ac\"",
        "replace(\"abc\", \"/(b)/\", \"$${1}x\")|\"abxc\"",
        "replace(\"abc\", \"/(?P<mid>b)/\", \"[$mid]\")|\"a[b]c\"",
        "replace(\"abc\", \"/b/\", \"$$\")|\"a$c\"",
        "replace(\"abc\", \"/b/\", \"$\")|\"a$c\"",
        // ^ anchors at the start of the text only
        "replace(\"aaa\", \"/^a/\", \"b\")|\"baa\"",
        "regex(\"(?<year>\\\\d{4})\", \"in 2024\")|{\"year\":\"2024\"}",
        "replace(\"hello world\", \"/w.*d/\", \"everybody\")|\"hello everybody\""
      })
  void matchesAsGoRegexpDoes(String expression, String expected) {
    assertThat(json(expression)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // java.util.regex only: lookaround, backreferences, possessive quantifiers, \Z
        "regex(\"a(?=b)\", \"ab\")",
        "regex(\"(a)\\\\1\", \"aa\")",
        "regex(\"a*+\", \"aa\")",
        "regex(\"a\\\\Z\", \"a\")"
      })
  void refusesJavaOnlySyntax(String expression) {
    assertThat(error(expression)).contains("invalid regular expression").contains("RE2");
  }

  @Test
  void refusesAPatternThatWouldCompileToAnEnormousProgram() {
    // RE2/J would try to build a hundred million instructions (and run out of memory)
    assertThat(error("regex(\"((((a{100}){100}){100}){100})\", \"a\")"))
        .contains("too large")
        .contains("above the limit of 100000");
    assertThat(json("regex(\"[0-9]{1,3}(\\\\.[0-9]{1,3}){3}\", \"ip 10.0.0.1\")"))
        .isEqualTo("[\".1\"]");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void filesetGlobsMatchInLinearTime() throws IOException {
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(dir.resolve("sub/" + "a".repeat(200)), "x");
    Files.writeString(dir.resolve("main.tf"), "x");
    Files.writeString(dir.resolve("sub/b.txt"), "x");
    // a backtracking glob matcher tries every way to split 200 a's between twenty stars
    assertThat(json("fileset(\".\", \"**" + "*a".repeat(20) + "*b\")")).isEqualTo("[]");
    assertThat(json("fileset(\".\", \"**/*.{tf,txt}\")")).isEqualTo("[\"main.tf\",\"sub/b.txt\"]");
    assertThat(json("fileset(\".\", \"sub/?.txt\")")).isEqualTo("[\"sub/b.txt\"]");
  }

  @Test
  void durationsAreReadWithoutARegularExpression() {
    assertThat(json("timeadd(\"2024-01-01T00:00:00Z\", \"1h30m\")"))
        .isEqualTo("\"2024-01-01T01:30:00Z\"");
    assertThat(json("timeadd(\"2024-01-01T00:00:00Z\", \"-1.5s\")"))
        .isEqualTo("\"2023-12-31T23:59:58.5Z\"");
    assertThat(error("timeadd(\"2024-01-01T00:00:00Z\", \"" + "1".repeat(100_000) + "\")"))
        .contains("invalid duration");
  }
}
