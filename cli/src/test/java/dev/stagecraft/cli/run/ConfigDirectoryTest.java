package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.cli.CliContext;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files travel with the configuration, and the limits. */
class ConfigDirectoryTest {
  @TempDir Path dir;

  void write(String path, String content) throws Exception {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  @Test
  void sendsEveryOtherRegularFileRecursivelyButNotHiddenStatePlansOrVariableFiles()
      throws Exception {
    write("main.tf", "resource \"null_resource\" \"a\" {}");
    write("extra.tf.json", "{}");
    write("deploy.sh", "echo hi");
    write("scripts/lib/util.sh", "util");
    write("modules/net/main.tf", "nested configuration is just a file here");
    write(".env", "SECRET=1");
    write(".stagecraft/dev-stack.json", "{}");
    write(".git/config", "x");
    write("scripts/.hidden", "x");
    write("prod.plan", "{}");
    write("terraform.tfstate", "{}");
    write("terraform.tfstate.backup", "{}");
    write("terraform.tfvars", "password = \"s3cret\"");
    write("tfplan", "{\n  \"format\" : \"stagecraft-saved-plan\",\n  \"request\" : {}\n}");
    Map<String, String> files = ConfigDirectory.readSupportFiles(dir);
    assertThat(files.keySet())
        .containsExactly("deploy.sh", "modules/net/main.tf", "scripts/lib/util.sh");
    assertThat(Base64.getDecoder().decode(files.get("deploy.sh")))
        .isEqualTo("echo hi".getBytes(StandardCharsets.UTF_8));
    assertThat(ConfigDirectory.read(dir).keySet()).containsExactly("extra.tf.json", "main.tf");
  }

  @Test
  void gitModuleCheckoutsAreSentWhenNamedAndCountAgainstTheLimits() throws Exception {
    write("deploy.sh", "echo hi");
    write(".stagecraft/modules/0123456789abcdef/modules/app/main.tf", "resource x");
    write(".stagecraft/modules/0123456789abcdef/.stagecraft-commit", "abc");
    write(".stagecraft/modules/fedcba9876543210/main.tf", "stale checkout, not called");
    write(".stagecraft/modules.lock.json", "{}");

    Map<String, String> files =
        ConfigDirectory.readSupportFiles(dir, List.of(".stagecraft/modules/0123456789abcdef"));

    assertThat(files.keySet())
        .containsExactly(".stagecraft/modules/0123456789abcdef/modules/app/main.tf", "deploy.sh");
    for (int i = 0; i < 10; i++) {
      Files.write(dir.resolve(".stagecraft/modules/0123456789abcdef/blob" + i), new byte[1 << 20]);
    }
    assertThatThrownBy(
            () ->
                ConfigDirectory.readSupportFiles(
                    dir, List.of(".stagecraft/modules/0123456789abcdef")))
        .isInstanceOf(ConfigDirectory.TooLargeException.class)
        .hasMessageContaining("more than 10 MiB");
  }

  @Test
  void aFileOverOneMibIsAClearErrorNamingIt() throws Exception {
    Files.write(dir.resolve("ok.bin"), new byte[1 << 20]);
    Files.createDirectories(dir.resolve("assets"));
    Files.write(dir.resolve("assets/big.bin"), new byte[(1 << 20) + 1]);
    assertThatThrownBy(() -> ConfigDirectory.readSupportFiles(dir))
        .isInstanceOf(ConfigDirectory.TooLargeException.class)
        .hasMessageContaining("\"assets/big.bin\"")
        .hasMessageContaining("at most 1 MiB");
  }

  @Test
  void moreThanTenMibInTotalIsAClearError() throws Exception {
    for (int i = 0; i < 11; i++) {
      Files.write(dir.resolve("part" + i + ".bin"), new byte[1 << 20]);
    }
    assertThatThrownBy(() -> ConfigDirectory.readSupportFiles(dir))
        .isInstanceOf(ConfigDirectory.TooLargeException.class)
        .hasMessageContaining("10 MiB")
        .hasMessageContaining("reached at \"part");
  }

  @Test
  void theRequestBodyCarriesTheSupportFilesAndALimitErrorStopsBeforeSending() throws Exception {
    write(
        "main.tf", "resource \"null_resource\" \"a\" {\n  triggers = { m = file(\"m.txt\") }\n}\n");
    write("m.txt", "hello");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx =
        new CliContext(
            dir,
            Map.of(),
            new PrintStream(PrintStream.nullOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    RunOptions options = RunOptions.parse(ctx, List.of(), false);
    Configs.Checked checked = Configs.loadChecked(ctx, options, false);
    assertThat(checked).as(err.toString(StandardCharsets.UTF_8)).isNotNull();
    Map<String, Object> body = Configs.body(options, checked, false);
    assertThat(body).containsEntry("supportFiles", Map.of("m.txt", "aGVsbG8="));
    assertThat(Configs.body(options, checked, checked.nonSensitiveVariables(), false))
        .containsKey("supportFiles");

    Files.write(dir.resolve("huge.iso"), new byte[2 << 20]);
    assertThat(Configs.loadChecked(ctx, options, false)).isNull();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("Error: the file \"huge.iso\"")
        .contains("2.0 MiB")
        .contains("at most 1 MiB");
  }

  @Test
  void theLocalCheckLeavesCheckResultsToTheServerButReportsOtherWarnings() throws Exception {
    write(
        "main.tf",
        """
        resource "null_resource" "a" {}
        provider "null" {}
        check "never" {
          assert {
            condition     = null_resource.a.id == "x" && path.module == "nowhere"
            error_message = "The check failed."
          }
        }
        """);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx =
        new CliContext(
            dir,
            Map.of(),
            new PrintStream(PrintStream.nullOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    RunOptions options = RunOptions.parse(ctx, List.of(), false);
    assertThat(Configs.loadChecked(ctx, options, false)).isNotNull();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("Warning: Ignored provider block")
        .doesNotContain("Check block assertion");
  }
}
