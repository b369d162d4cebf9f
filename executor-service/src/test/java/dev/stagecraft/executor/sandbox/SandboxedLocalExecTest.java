package dev.stagecraft.executor.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.step.ActionResult;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.executor.step.LocalCommands;
import dev.stagecraft.executor.step.OutputLines;
import dev.stagecraft.executor.step.OutputSink;
import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** local-exec steps through the runner in the real sandbox: limits end steps with their names. */
class SandboxedLocalExecTest {
  static Path directory;
  static BubblewrapSandbox sandbox;
  final List<String> lines = Collections.synchronizedList(new ArrayList<>());
  final OutputSink sink = (step, stream, line) -> lines.add(stream.wireName() + ": " + line);

  @BeforeAll
  static void createSandbox() throws Exception {
    directory =
        Path.of("target", "sandbox-runner-" + ProcessHandle.current().pid()).toAbsolutePath();
    sandbox =
        BubblewrapSandbox.create(
            SandboxSettings.defaults(directory)
                .withUids(BubblewrapSandboxTest.FIRST_UID + 300, 50)
                .withLimits(64L << 20, 4L << 20, 64, 1.0));
  }

  @AfterAll
  static void removeDirectory() throws IOException {
    SandboxTestFiles.deleteTree(directory);
  }

  static ActionDispatched action(ProvisionerStep... steps) {
    return new ActionDispatched(
        "run-1",
        "run-1/terraform_data.x",
        "terraform_data.x",
        "terraform_data",
        "create",
        Map.of(),
        List.of(),
        List.of(steps),
        1,
        List.of(),
        null,
        null,
        null);
  }

  static ProvisionerStep localExec(String command, int timeoutSeconds) {
    return new ProvisionerStep(
        "local-exec",
        null,
        null,
        command,
        List.of(),
        Map.of(),
        null,
        false,
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        timeoutSeconds,
        0);
  }

  ActionRunner runner() {
    return new ActionRunner(sandbox, RemoteConnector.UNAVAILABLE);
  }

  /** Processes of the host whose command line holds {@code marker}. */
  static List<ProcessHandle> running(String marker) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().orElse("").contains(marker))
        .toList();
  }

  @Test
  void aStepThatRunsPastItsTimeoutIsKilledAndFailsNamingTheTimeout() {
    String marker = "sleep 31." + (System.nanoTime() % 1000);
    ActionResult result = runner().run(action(localExec(marker + "; echo never", 1)), sink);

    assertThat(result.outcome()).isEqualTo(ActionResult.Outcome.FAILED);
    assertThat(result.error())
        .contains(
            "timed out after 1 s (the step timeout: the provisioner's timeout, else the"
                + " workspace's step timeout)");
    assertThat(lines).doesNotContain("stdout: never");
    assertThat(running(marker)).isEmpty();
  }

  @Test
  void aStepThatPrintsMoreThanTheOutputLimitIsStoppedAndFailsNamingTheLimit() {
    ActionResult result = runner().withStepOutputLimit(4096).run(action(localExec("yes", 0)), sink);

    assertThat(result.outcome()).isEqualTo(ActionResult.Outcome.FAILED);
    assertThat(result.error())
        .contains("printed more than 4096 bytes, the step output limit")
        .contains("STAGECRAFT_EXECUTOR_STEP_OUTPUT_LIMIT");
    long delivered = lines.stream().filter(l -> l.startsWith("stdout: ")).count();
    assertThat(delivered).isBetween(1000L, 2048L); // "y\n" is two bytes: at most 2048 lines
    assertThat(running("yes")).noneMatch(p -> p.info().command().orElse("").endsWith("/yes"));
  }

  @Test
  void aLineWithoutEndIsHandedOverInBoundedPieces() {
    ActionResult result =
        runner().run(action(localExec("head -c 300000 /dev/zero | tr '\\0' a", 0)), sink);

    assertThat(result.isSucceeded()).isTrue();
    List<String> out =
        lines.stream().filter(l -> l.startsWith("stdout: ")).map(l -> l.substring(8)).toList();
    assertThat(out)
        .allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(OutputLines.MAX_LINE_BYTES));
    assertThat(out.stream().mapToInt(String::length).sum()).isEqualTo(300_000);
  }

  @Test
  void aStepStoppedByTheSandboxsMemoryLimitSaysSo() {
    ActionResult result =
        runner()
            .run(action(localExec("head -c 200000000 /dev/zero | tail -n 1 >/dev/null", 0)), sink);

    assertThat(result.outcome()).isEqualTo(ActionResult.Outcome.FAILED);
    assertThat(result.error())
        .contains("The sandbox stopped it: it exceeded the memory limit of 64 MiB");
  }

  @Test
  void aCanceledStepLeavesNoProcessBehind() throws Exception {
    String marker = "sleep 41." + (System.nanoTime() % 1000);
    LinkedBlockingQueue<String> seen = new LinkedBlockingQueue<>();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      CompletableFuture<ActionResult> result =
          CompletableFuture.supplyAsync(
              () ->
                  runner()
                      .run(
                          action(localExec("echo started; " + marker + " & wait", 0)),
                          (step, stream, line) -> seen.add(line)),
              thread);
      while (!"started".equals(seen.poll(30, TimeUnit.SECONDS))) {
        assertThat(result).isNotDone();
      }
      assertThat(running(marker)).isNotEmpty();

      thread.shutdownNow(); // interrupts the action's thread, as a cancel does

      assertThat(result.get(30, TimeUnit.SECONDS).error()).contains("was interrupted");
      assertThat(running(marker)).isEmpty();
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void anExecutorWithoutASandboxRefusesTheStepAndRunsNothing() {
    String marker = "refused-" + UUID.randomUUID();
    LocalCommands refusing =
        action -> {
          throw new LocalCommands.Unavailable("no bubblewrap here");
        };
    ActionResult result =
        new ActionRunner(refusing, RemoteConnector.UNAVAILABLE)
            .run(action(localExec("echo " + marker, 0)), sink);

    assertThat(result.outcome()).isEqualTo(ActionResult.Outcome.FAILED);
    assertThat(result.error()).isEqualTo("step 0 (local-exec) was not run: no bubblewrap here");
    assertThat(lines).noneMatch(l -> l.contains("stdout: " + marker));
  }
}
