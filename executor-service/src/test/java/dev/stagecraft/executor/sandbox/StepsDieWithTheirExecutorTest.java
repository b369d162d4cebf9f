package dev.stagecraft.executor.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code local-exec} command dies with its executor (issue 30): an executor in a JVM of its own
 * ({@link StepProbeMain}) starts a command that would append a token to a journal after a long
 * wait, the executor is killed with SIGKILL, and then no process of the command is left and the
 * journal never gets the token. Both the sandbox and the unsandboxed opt-out are checked. A command
 * also outlives the thread that started it (the kernel's parent-death signal follows the starting
 * thread, and an executor starts commands from virtual threads whose carriers come and go).
 */
class StepsDieWithTheirExecutorTest {
  static final int FIRST_UID = BubblewrapSandboxTest.FIRST_UID + 500;
  static final Duration GONE_WITHIN = Duration.ofSeconds(15);

  Path directory;
  Path shared;
  String marker;
  Process executor;

  @BeforeEach
  void directories() throws IOException {
    String id = UUID.randomUUID().toString();
    directory = Path.of("target", "orphans-" + id).toAbsolutePath();
    shared = Files.createDirectories(directory.resolve("shared"));
    Files.setAttribute(shared, "unix:mode", 0777);
    marker = "probe-" + id;
  }

  @AfterEach
  void cleanUp() throws Exception {
    if (executor != null && executor.isAlive()) {
      executor.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    // a failed test must not leave its command running
    stepProcesses().forEach(ProcessHandle::destroyForcibly);
    // the killed executor could not unmount its actions' file systems (a new one would)
    Path sessions = directory.resolve("sandbox").resolve("sessions");
    if (Files.isDirectory(sessions)) {
      try (Stream<Path> mounts = Files.list(sessions)) {
        for (Path m : mounts.toList()) {
          BubblewrapSandbox.run(List.of(BubblewrapSandbox.UMOUNT.toString(), m.toString()));
        }
      }
    }
    // and its control groups (a new executor removes them when it leases the uid again)
    ControlGroups groups = ControlGroups.detect();
    for (int uid = FIRST_UID; uid < FIRST_UID + 4; uid++) {
      groups.create(uid, 0, 1, 0).close();
    }
    SandboxTestFiles.deleteTree(directory);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sandbox", "off"})
  void killingTheExecutorKillsEveryProcessOfItsStep(String mode) throws Exception {
    Path journal = shared.resolve("journal");
    startExecutor(mode, "sleep 30; echo done-" + marker + " >> " + journal);
    await("the step's sleep")
        .atMost(Duration.ofSeconds(30))
        .until(() -> stepProcesses().anyMatch(p -> cmdline(p).startsWith("sleep")));
    List<ProcessHandle> step = stepProcesses().toList();

    executor.destroyForcibly(); // SIGKILL: the executor gets no chance to clean up
    assertThat(executor.waitFor(30, TimeUnit.SECONDS)).isTrue();

    await("every process of the step to end")
        .atMost(GONE_WITHIN)
        .untilAsserted(() -> assertThat(stepProcesses().map(this::describe).toList()).isEmpty());
    // none runs on (a process that died is at most a zombie until its new parent reaps it)
    assertThat(step.stream().filter(p -> running(p)).map(this::describe).toList()).isEmpty();
    assertThat(journal).doesNotExist(); // and no process is left that could still write it
  }

  @ParameterizedTest
  @ValueSource(strings = {"sandbox", "off"})
  void aStepOutlivesTheThreadThatStartedIt(String mode) throws Exception {
    Path journal = shared.resolve("journal");
    Path go = shared.resolve("go");
    startExecutor(
        mode,
        "while [ ! -e " + go + " ]; do sleep 0.05; done; echo done-" + marker + " >> " + journal);
    // the probe printed "started" after the starting thread ended
    Files.createFile(go);

    await("the step to finish its work")
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.exists(journal) && Files.readString(journal).contains("done-" + marker));
    executor.getOutputStream().close(); // the probe ends at the end of its input
    assertThat(executor.waitFor(30, TimeUnit.SECONDS)).isTrue();
  }

  /** Starts the probe executor and waits until it says the command started. */
  private void startExecutor(String mode, String command) throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> argv =
        new ArrayList<>(
            List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                StepProbeMain.class.getName(),
                mode,
                directory.resolve("sandbox").toString(),
                shared.toString(),
                Integer.toString(FIRST_UID),
                marker,
                command));
    executor =
        new ProcessBuilder(argv)
            .redirectError(
                ProcessBuilder.Redirect.appendTo(directory.resolve("probe.log").toFile()))
            .start();
    BufferedReader out =
        new BufferedReader(
            new InputStreamReader(executor.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> first = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> { // the probe logs to its standard output too: read on until "started"
              try {
                for (String l = out.readLine(); l != null; l = out.readLine()) {
                  if (l.equals("started")) {
                    first.complete(l);
                  }
                }
              } catch (IOException e) {
                // the probe is gone
              }
              first.complete(null);
            });
    String line = first.get(60, TimeUnit.SECONDS);
    assertThat(line).as(() -> "probe output; its log: " + log()).isEqualTo("started");
  }

  private String log() {
    try {
      return Files.readString(directory.resolve("probe.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** The processes of the step: those whose environment carries the marker (it is inherited). */
  private Stream<ProcessHandle> stepProcesses() {
    long probe = executor == null ? -1 : executor.pid();
    return ProcessHandle.allProcesses()
        .filter(p -> p.pid() != probe)
        .filter(p -> environ(p).contains("STAGECRAFT_PROBE_MARKER=" + marker));
  }

  /** Whether the process exists and is not a zombie. */
  private static boolean running(ProcessHandle p) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (IOException e) {
      return false;
    }
  }

  private static String environ(ProcessHandle p) {
    try {
      return new String(
          Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "environ")),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      return ""; // gone, or not readable
    }
  }

  private String cmdline(ProcessHandle p) {
    try {
      return new String(
              Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
              StandardCharsets.UTF_8)
          .replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }

  private String describe(ProcessHandle p) {
    return p.pid() + " " + cmdline(p);
  }
}
