package dev.stagecraft.cli.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.StagecraftCli;
import dev.stagecraft.devstack.DevStackPointer;
import dev.stagecraft.devstack.StackFiles;
import dev.stagecraft.devstack.StackInfo;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StackCommandsTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    CliContext context =
        new CliContext(
            tmp,
            Map.of("STAGECRAFT_HOME", tmp.resolve("home").toString()),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    return new StagecraftCli().run(args, context);
  }

  @Test
  void envPrintsTheDevStacksAddressAndToken() throws Exception {
    StackFiles.writeJson(
        tmp.resolve("home/dev-stack.json"),
        new DevStackPointer("http://127.0.0.1:8080", "sc_abc", tmp.toString()),
        true);
    assertThat(run("env")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "export STAGECRAFT_ADDR=http://127.0.0.1:8080\nexport STAGECRAFT_TOKEN=sc_abc\n");
  }

  @Test
  void envFailsWhenNoDevStackWasStarted() {
    assertThat(run("env")).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("./stagecraft up -detach");
  }

  @Test
  void downWithoutARunningStackSaysSoAndSucceeds() {
    assertThat(run("down")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("No dev stack is running");
  }

  @Test
  void downIgnoresAStackJsonWhoseSupervisorIsGone() throws Exception {
    Path data = tmp.resolve("data");
    StackFiles.writeJson(
        data.resolve("stack.json"),
        new StackInfo(
            Long.MAX_VALUE / 2, "http://x", "", "", "", "", "", data.toString(), Map.of()),
        false);
    assertThat(run("down", "-data-dir=" + data)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("No dev stack is running");
  }

  @Test
  void upRejectsAnUnknownOption() {
    assertThat(run("up", "-bogus")).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option -bogus");
  }
}
