package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.SimpleEvalContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StepFiles} alone: text, directories, and the errors at the argument naming the file. */
class StepFilesTest {
  @TempDir Path dir;
  private final Diagnostics diagnostics = new Diagnostics();

  private StepFiles files() {
    return new StepFiles(
        SimpleEvalContext.empty().withBaseDirectory(dir).withFileAccessConfined(true), diagnostics);
  }

  /** The {@code source} argument of a parsed file provisioner, at main.tf:3:5. */
  private static AttributeDecl source() {
    return StepScopes.resource(
            """
            resource "terraform_data" "app" {
              provisioner "file" {
                source      = "x"
                destination = "/tmp/x"
              }
            }
            """)
        .provisioners()
        .get(0)
        .attributes()
        .get("source");
  }

  @Test
  void aDirectoryWithoutTrailingSlashUploadsUnderItsNameWithOneDoesNot() throws IOException {
    Files.createDirectories(dir.resolve("site/css"));
    Files.writeString(dir.resolve("site/index.html"), "<p>");
    Files.writeString(dir.resolve("site/css/a.css"), "p{}");
    Map<String, String> named = files().directory("site", dir.resolve("site"), source());
    assertThat(named).containsOnlyKeys("site/css/a.css", "site/index.html");
    assertThat(
            new String(
                Base64.getDecoder().decode(named.get("site/index.html")), StandardCharsets.UTF_8))
        .isEqualTo("<p>");
    assertThat(files().directory("site/", dir.resolve("site"), source()))
        .containsOnlyKeys("css/a.css", "index.html");
    assertThat(diagnostics.isEmpty()).isTrue();
  }

  @Test
  void anEmptyDirectoryIsAnErrorAtTheArgument() throws IOException {
    Files.createDirectories(dir.resolve("empty"));
    files().directory("empty", dir.resolve("empty"), source());
    Diagnostic d = diagnostics.errors().get(0);
    assertThat(d.summary()).isEqualTo("Empty source directory");
    assertThat(d.range().toString()).isEqualTo("main.tf:3:5");
  }

  @Test
  void aBinarySourceFileIsRefusedWithTheDirectoryHint() throws IOException {
    Files.write(dir.resolve("blob"), new byte[] {(byte) 0xff, (byte) 0xfe, 0});
    assertThat(files().readText("blob", source(), "source file")).isNull();
    assertThat(diagnostics.errors().get(0).detail())
        .isEqualTo(
            "The source file \"blob\" is not UTF-8 text; to upload binary files, put them in a"
                + " directory and use it as the source.");
  }

  @Test
  void aPathLeavingTheConfigurationDirectoryIsInvalidWhenConfined() {
    assertThat(files().readText("../outside", source(), "script")).isNull();
    Diagnostic d = diagnostics.errors().get(0);
    assertThat(d.summary()).isEqualTo("Invalid path");
    assertThat(d.range().toString()).isEqualTo("main.tf:3:5");
    assertThat(diagnostics.errors()).hasSize(1);
  }
}
