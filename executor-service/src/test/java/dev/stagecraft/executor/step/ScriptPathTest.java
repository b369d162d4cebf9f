package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.ActionResult.Outcome;
import dev.stagecraft.executor.step.Fixtures.RecordingSink;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Terraform's {@code script_path} against a real OpenSSH sshd on loopback: each remote-exec script
 * is uploaded to the configured path with {@code %RAND%} replaced by a random number, run from
 * there and removed; without one the executor's default applies.
 */
class ScriptPathTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  @TempDir Path dir;
  private final RecordingSink sink = new RecordingSink();
  private final List<String> defaultPaths = new ArrayList<>();
  private ActionRunner runner;

  @BeforeEach
  void setUp() {
    runner =
        new ActionRunner(
            dir,
            new SshjRemoteConnector(),
            () -> {
              String path = dir.resolve("default-" + defaultPaths.size() + ".sh").toString();
              defaultPaths.add(path);
              return path;
            });
  }

  private static SshConnection connection(String scriptPath) throws Exception {
    return new SshConnection(
            SSHD.host(),
            SSHD.port(),
            SSHD.user(),
            null,
            SSHD.ed25519Key(),
            null,
            SSHD.hostKey(),
            30,
            null)
        .withScriptPath(scriptPath);
  }

  private static ActionDispatched create(SshConnection connection, List<String> scripts) {
    return new ActionDispatched(
        "run-1",
        "action-1",
        "stateful_provisioning.app",
        "stateful_provisioning",
        "create",
        Map.of(),
        List.of(),
        List.of(Fixtures.remoteExec(connection, List.of(), scripts, 0, 0)),
        7,
        List.of());
  }

  @Test
  void uploadsEachScriptToTheConfiguredPathWithRandReplaced() throws Exception {
    Path scripts = Files.createDirectories(dir.resolve("my scripts"));
    String template = scripts + "/deploy_%RAND%.sh";
    ActionResult result =
        runner.run(
            create(
                connection(template),
                List.of("#!/bin/sh\necho \"ran $0\"\n", "#!/bin/sh\necho \"ran $0\"\n")),
            sink);

    assertThat(result.outcome()).as(result.error()).isEqualTo(Outcome.SUCCEEDED);
    List<String> ran = sink.of(LogStream.STDOUT);
    assertThat(ran)
        .hasSize(2)
        .allSatisfy(
            line ->
                assertThat(line)
                    .matches(
                        "ran "
                            + java.util.regex.Pattern.quote(scripts + "/deploy_")
                            + "\\d+\\.sh"));
    // each script had its own draw, and each was removed after it ran
    assertThat(ran.get(0)).isNotEqualTo(ran.get(1));
    try (Stream<Path> left = Files.list(scripts)) {
      assertThat(left).isEmpty();
    }
    assertThat(defaultPaths).isEmpty();
  }

  @Test
  void aPathWithoutRandIsUsedAsItIs() throws Exception {
    String path = dir.resolve("fixed.sh").toString();
    ActionResult result =
        runner.run(create(connection(path), List.of("#!/bin/sh\necho \"ran $0\"\n")), sink);

    assertThat(result.outcome()).as(result.error()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("ran " + path);
    assertThat(Path.of(path)).doesNotExist();
  }

  @Test
  void withoutAScriptPathTheExecutorsDefaultApplies() throws Exception {
    ActionResult result =
        runner.run(create(connection(null), List.of("#!/bin/sh\necho \"ran $0\"\n")), sink);

    assertThat(result.outcome()).as(result.error()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(defaultPaths).hasSize(1);
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("ran " + defaultPaths.get(0));
  }

  @Test
  void randIsReplacedEverywhereAndOddPathsAreQuotedForTheShell() {
    String path = ScriptPaths.of(connection0("/tmp/a_%RAND%/b_%RAND%.sh"), () -> "unused");
    assertThat(path).matches("/tmp/a_\\d+/b_\\d+\\.sh");
    assertThat(ScriptPaths.asCommand("/tmp/terraform_123.sh")).isEqualTo("/tmp/terraform_123.sh");
    assertThat(ScriptPaths.asCommand("/tmp/it's here;rm -rf x.sh"))
        .isEqualTo("'/tmp/it'\\''s here;rm -rf x.sh'");
  }

  private static SshConnection connection0(String scriptPath) {
    return new SshConnection("h", 22, "u", null, "k", null, null, 30, null)
        .withScriptPath(scriptPath);
  }
}
