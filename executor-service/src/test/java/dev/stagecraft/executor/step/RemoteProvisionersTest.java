package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.ActionResult.Outcome;
import dev.stagecraft.executor.step.Fixtures.RecordingSink;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** remote-exec and file steps against a real OpenSSH sshd on loopback (so files land locally). */
class RemoteProvisionersTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  @TempDir Path dir;
  private final RecordingSink sink = new RecordingSink();
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final List<String> scriptPaths = new ArrayList<>();
  private ActionRunner runner;

  @BeforeEach
  void setUp() {
    AtomicInteger n = new AtomicInteger();
    runner =
        new ActionRunner(
            dir,
            new SshjRemoteConnector(),
            () -> {
              String path = dir.resolve("script-" + n.incrementAndGet() + ".sh").toString();
              scriptPaths.add(path);
              return path;
            });
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  private static SshConnection connection(String hostKey) throws Exception {
    return new SshConnection(
        SSHD.host(), SSHD.port(), SSHD.user(), null, SSHD.ed25519Key(), null, hostKey, 30, null);
  }

  private static ProvisionerStep remoteExec(
      SshConnection connection, List<String> inline, List<String> scripts, int timeoutSeconds) {
    return Fixtures.remoteExec(connection, inline, scripts, timeoutSeconds, 0);
  }

  private static ProvisionerStep file(
      SshConnection connection, String destination, String content, Map<String, String> files) {
    return new ProvisionerStep(
        "file",
        null,
        null,
        null,
        null,
        null,
        null,
        false,
        false,
        connection,
        null,
        null,
        destination,
        content,
        files,
        0,
        0);
  }

  private static ActionDispatched create(List<String> sensitive, ProvisionerStep... steps) {
    return new ActionDispatched(
        "run-1",
        "action-1",
        "stateful_provisioning.app",
        "stateful_provisioning",
        "create",
        Map.of(),
        List.of(),
        List.of(steps),
        7,
        sensitive);
  }

  @Test
  void runsAllInlineCommandsInOneScriptAndReportsTheLastExitCode() throws Exception {
    ActionResult result =
        runner.run(
            create(
                List.of(),
                remoteExec(
                    connection(SSHD.hostKey()),
                    List.of(
                        "echo one",
                        "false",
                        "echo two >&2",
                        "for i in 1 2 3 4 5; do echo line-$i; done",
                        "exit 3"),
                    List.of(),
                    0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.error()).contains("step 0 (remote-exec) failed: exit status 3.", "line-5");
    assertThat(sink.of(LogStream.STDOUT))
        .containsExactly("one", "line-1", "line-2", "line-3", "line-4", "line-5");
    assertThat(sink.of(LogStream.STDERR)).containsExactly("two");
    assertThat(sink.of(LogStream.SYSTEM))
        .contains("Connecting to remote host via SSH...", "Connected!")
        .last()
        .asString()
        .startsWith("Error: step 0 (remote-exec) failed: exit status 3.");
  }

  @Test
  void streamsEachLineBeforeTheRemoteCommandExits() throws Exception {
    Path gate = dir.resolve("gate");
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    ActionDispatched action =
        create(
            List.of(),
            remoteExec(
                connection(SSHD.hostKey()),
                List.of(
                    "echo first", "until [ -e " + gate + " ]; do sleep 0.05; done", "echo second"),
                List.of(),
                0));

    CompletableFuture<ActionResult> result =
        CompletableFuture.supplyAsync(
            () ->
                runner.run(
                    action,
                    (step, stream, line) -> {
                      if (stream != LogStream.SYSTEM) {
                        lines.add(stream.wireName() + ": " + line);
                      }
                    }),
            threads);

    assertThat(lines.poll(60, TimeUnit.SECONDS)).isEqualTo("stdout: first");
    assertThat(result).isNotDone();
    Files.createFile(gate);
    assertThat(result.get(60, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(lines).containsExactly("stdout: second");
  }

  @Test
  void uploadsEachScriptWithMode700RunsItInOrderAndRemovesIt() throws Exception {
    ActionResult result =
        runner.run(
            create(
                List.of(),
                remoteExec(
                    connection(SSHD.hostKey()),
                    List.of(),
                    List.of(
                        "#!/bin/sh\necho first-script $(stat -c %a \"$0\")\n",
                        "#!/bin/sh\necho second-script\n"),
                    0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("first-script 700", "second-script");
    assertThat(scriptPaths).hasSize(2).allSatisfy(p -> assertThat(Path.of(p)).doesNotExist());
  }

  @Test
  void writesContentToTheDestination() throws Exception {
    Path destination = dir.resolve("etc/app.conf");

    ActionResult result =
        runner.run(
            create(
                List.of(),
                file(connection(SSHD.hostKey()), destination.toString(), "port = 8080\n", null)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(destination).hasContent("port = 8080");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(destination)))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void uploadsASourceDirectoryUnderTheDestination() throws Exception {
    Path destination = dir.resolve("site");
    Map<String, String> files =
        Map.of(
            "index.html", base64("<h1>hi</h1>"),
            "assets/css/site.css", base64("body {}"));

    ActionResult result =
        runner.run(
            create(
                List.of(), file(connection(SSHD.hostKey()), destination.toString(), null, files)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(destination.resolve("index.html")).hasContent("<h1>hi</h1>");
    assertThat(destination.resolve("assets/css/site.css")).hasContent("body {}");
  }

  @Test
  void reusesOneConnectionForTheStepsOfAnAction() throws Exception {
    SshConnection connection = connection(SSHD.hostKey());
    ActionResult result =
        runner.run(
            create(
                List.of(),
                file(connection, dir.resolve("a.txt").toString(), "a", null),
                remoteExec(connection, List.of("cat " + dir.resolve("a.txt")), List.of(), 0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("a");
    assertThat(sink.of(LogStream.SYSTEM)).containsOnlyOnce("Connected!");
  }

  @Test
  void neverShowsThePrivateKeyOrOtherSensitiveValues() throws Exception {
    String key = SSHD.ed25519Key();
    ActionResult result =
        runner.run(
            create(
                List.of(key, "hunter2"),
                remoteExec(
                    connection(null),
                    List.of("echo password is hunter2", "cat <<'EOF'\n" + key + "EOF", "exit 1"),
                    List.of(),
                    0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(sink.of(LogStream.STDOUT)).contains("password is (sensitive value)");
    String everything = String.join("\n", sink.lines) + "\n" + result.error();
    assertThat(everything).doesNotContain("hunter2");
    for (String keyLine :
        key.lines().filter(l -> l.length() >= Redactor.MIN_LINE_LENGTH).toList()) {
      assertThat(everything).doesNotContain(keyLine);
    }
  }

  @Test
  void runsNothingWhenThePinnedHostKeyDoesNotMatch() throws Exception {
    Path marker = dir.resolve("ran");

    ActionResult result =
        runner.run(
            create(
                List.of(),
                remoteExec(
                    connection(SSHD.otherHostKey()), List.of("touch " + marker), List.of(), 0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.error())
        .contains(
            "step 0 (remote-exec): host key changed for " + SSHD.host() + ":" + SSHD.port(),
            "(pinned host_key) was expected",
            "nothing was run");
    assertThat(marker).doesNotExist();
    assertThat(scriptPaths).isEmpty();
    assertThat(sink.learned).isEmpty();
  }

  @Test
  void runsNothingWhenTheKeyRecordedOnFirstUseNoLongerMatches() throws Exception {
    Path marker = dir.resolve("ran");
    SshConnection recorded =
        connection(null)
            .withKnownHostKeys(List.of(SSHD.otherHostKey() + " first use in workspace prod"));

    ActionResult result =
        runner.run(
            create(List.of(), remoteExec(recorded, List.of("touch " + marker), List.of(), 0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.error())
        .contains(
            "host key changed for " + SSHD.host() + ":" + SSHD.port(),
            "(first use in workspace prod) was expected",
            "stagecraft known-hosts remove -workspace=prod " + SSHD.host() + ":" + SSHD.port(),
            "nothing was run");
    assertThat(marker).doesNotExist();
    assertThat(scriptPaths).isEmpty();
    assertThat(sink.learned).isEmpty();
  }

  @Test
  void reportsTheHostKeyItTrustedOnFirstUseToTheSink() throws Exception {
    Path marker = dir.resolve("ran");

    ActionResult result =
        runner.run(
            create(
                List.of(), remoteExec(connection(null), List.of("touch " + marker), List.of(), 0)),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(marker).exists();
    assertThat(sink.learned)
        .singleElement()
        .satisfies(
            key -> {
              assertThat(key.host()).isEqualTo(SSHD.host());
              assertThat(key.port()).isEqualTo(SSHD.port());
              assertThat(key.publicKey()).isEqualTo(SSHD.hostKey());
              assertThat(key.fingerprint()).startsWith("SHA256:");
            });
  }

  @Test
  void learnsNothingFromAHostWhoseKeyIsKnown() throws Exception {
    SshConnection known =
        connection(null).withKnownHostKeys(List.of(SSHD.hostKey() + " tenant known hosts"));

    ActionResult result =
        runner.run(create(List.of(), remoteExec(known, List.of("true"), List.of(), 0)), sink);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(sink.learned).isEmpty();
  }

  @Test
  void stopsARemoteCommandThatPrintsMoreThanTheStepOutputLimitAndFailsNamingIt() throws Exception {
    ActionResult result =
        runner
            .withStepOutputLimit(4096)
            .run(
                create(
                    List.of(),
                    remoteExec(
                        connection(SSHD.hostKey()), List.of("yes 3739 | cat"), List.of(), 0)),
                sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.error())
        .contains("step 0 (remote-exec) printed more than 4096 bytes, the step output limit");
    assertThat(sink.of(LogStream.STDOUT).size()).isBetween(100, 820);
    await().atMost(Duration.ofSeconds(30)).until(() -> !running("/yes", "3739"));
  }

  @Test
  void killsACommandThatOutlivesTheStepTimeout() throws Exception {
    CompletableFuture<ActionResult> result =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return runner.run(
                    create(
                        List.of(),
                        remoteExec(
                            connection(SSHD.hostKey()),
                            List.of("echo started", "sleep 3738", "echo never"),
                            List.of(),
                            // long enough for the connection and the first line on a busy machine
                            5)),
                    sink);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            threads);

    ActionResult ended = result.get(60, TimeUnit.SECONDS);
    assertThat(ended.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(ended.error()).contains("step 0 (remote-exec) timed out after 5 s", "started");
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("started");
    await().atMost(Duration.ofSeconds(30)).until(() -> !sleepRunning("3738"));
    assertThat(scriptPaths).allSatisfy(p -> assertThat(Path.of(p)).doesNotExist());
  }

  private static boolean sleepRunning(String seconds) {
    return running("/sleep", seconds);
  }

  /** Whether a process of {@code command} (its path's end) with the single argument runs. */
  private static boolean running(String command, String argument) {
    return ProcessHandle.allProcesses()
        .anyMatch(
            p ->
                p.info().command().map(c -> c.endsWith(command)).orElse(false)
                    && p.info()
                        .arguments()
                        .map(a -> List.of(a).equals(List.of(argument)))
                        .orElse(false));
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
