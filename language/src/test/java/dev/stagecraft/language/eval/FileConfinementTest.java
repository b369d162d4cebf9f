package dev.stagecraft.language.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.syntax.Parser;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server evaluating a tenant's configuration must not read its own files. */
class FileConfinementTest {
  @TempDir Path dir;

  EvalResult eval(String expression, boolean confined) {
    return new Evaluator()
        .evaluate(
            Parser.parseExpression("main.tf", expression).expression(),
            SimpleEvalContext.empty().withBaseDirectory(dir).withFileAccessConfined(confined));
  }

  @Test
  void confinedFileFunctionsReadInsideTheBaseDirectoryButNotOutside() throws Exception {
    Files.writeString(dir.resolve("inside.txt"), "ok");
    Path outside = Files.createTempFile("outside", ".txt");
    Files.writeString(outside, "secret");
    assertThat(eval("file(\"inside.txt\")", true).value().asString()).isEqualTo("ok");
    for (String expr :
        new String[] {
          "file(\"" + outside + "\")",
          "file(\"../" + dir.getFileName() + "/../" + outside.getFileName() + "\")",
          "filemd5(\"" + outside + "\")",
          "fileexists(\"" + outside + "\")",
          "templatefile(\"" + outside + "\", {})"
        }) {
      EvalResult r = eval(expr, true);
      assertThat(r.hasErrors()).as(expr).isTrue();
      assertThat(r.diagnostics().toString())
          .as(expr)
          .contains(
              expr.contains("\"../")
                  ? "outside the configuration directory"
                  : "absolute paths cannot be read on the server; put the file in the"
                      + " configuration directory or pass its content in a variable");
    }
    // the CLI, like Terraform, reads any path the user gives
    assertThat(eval("file(\"" + outside + "\")", false).value().asString()).isEqualTo("secret");
  }
}
