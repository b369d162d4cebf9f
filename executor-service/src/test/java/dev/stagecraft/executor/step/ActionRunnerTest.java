package dev.stagecraft.executor.step;

import static dev.stagecraft.executor.step.Fixtures.action;
import static dev.stagecraft.executor.step.Fixtures.localExec;
import static dev.stagecraft.executor.step.Fixtures.provisioner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.step.ActionResult.Outcome;
import dev.stagecraft.executor.step.Fixtures.RecordingSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ActionRunnerTest {
  @TempDir Path dir;
  private ActionRunner runner;
  private final RecordingSink sink = new RecordingSink();
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @BeforeEach
  void setUp() {
    runner = new ActionRunner(dir);
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  @Test
  void streamsEachLineAsItIsPrintedBeforeTheCommandExits() throws Exception {
    // The command prints a line, then waits for a gate file the test creates only after it has
    // seen that line: the line can only arrive if it is streamed, not buffered until exit.
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    var create =
        action(
            "create",
            localExec(
                "echo first; echo first-err >&2; until [ -e gate ]; do sleep 0.01; done;"
                    + " echo second"));

    CompletableFuture<ActionResult> result =
        CompletableFuture.supplyAsync(
            () ->
                runner.run(
                    create, (step, stream, line) -> lines.add(stream.wireName() + ": " + line)),
            threads);

    assertThat(lines.poll(30, TimeUnit.SECONDS)).startsWith("system: Executing: ");
    List<String> beforeGate = new java.util.ArrayList<>();
    beforeGate.add(lines.poll(30, TimeUnit.SECONDS));
    beforeGate.add(lines.poll(30, TimeUnit.SECONDS));
    assertThat(beforeGate).containsExactlyInAnyOrder("stdout: first", "stderr: first-err");
    assertThat(result).isNotDone();

    Files.createFile(dir.resolve("gate"));

    assertThat(result.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(lines).containsExactly("stdout: second");
  }

  @Test
  void readsTheCommandsPipesOnPlatformThreadsSoNoCarrierIsHeld() throws Exception {
    // a pipe read blocks in native code: on a virtual thread it would hold its carrier for as long
    // as the command runs (two readers of one long command held both carriers of a 2-core
    // executor and starved every other virtual thread of it)
    List<String> readBy = new java.util.concurrent.CopyOnWriteArrayList<>();
    ActionResult result =
        CompletableFuture.supplyAsync(
                () ->
                    runner.run(
                        action("create", localExec("echo out; echo err >&2")),
                        (step, stream, line) -> {
                          if (stream != LogStream.SYSTEM) {
                            readBy.add(
                                stream.wireName()
                                    + (Thread.currentThread().isVirtual()
                                        ? " virtual"
                                        : " platform"));
                          }
                        }),
                threads) // the executor runs every action on a virtual thread
            .get(30, TimeUnit.SECONDS);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(readBy).containsExactlyInAnyOrder("stdout platform", "stderr platform");
  }

  @Test
  void keepsTheOrderOfLinesWithinAStream() {
    ActionResult result =
        runner.run(
            action("create", localExec("for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; done")), sink);

    assertThat(result).isEqualTo(ActionResult.succeeded());
    assertThat(sink.of(LogStream.STDOUT))
        .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
  }

  @Test
  void echoesTheCommandLikeTerraformBeforeRunningIt() {
    runner.run(action("create", localExec("echo hi")), sink);

    assertThat(sink.lines)
        .containsExactly("system: Executing: [\"/bin/sh\" \"-c\" \"echo hi\"]", "stdout: hi");
  }

  @Test
  void quietStepDoesNotEchoItsCommand() {
    runner.run(action("create", localExec("echo hi").quiet()), sink);

    assertThat(sink.lines).containsExactly("stdout: hi");
  }

  @Test
  void reportsNonZeroExitWithExitCodeStepAndLastOutput() {
    ActionResult result =
        runner.run(
            action(
                "create",
                localExec("echo doing it; echo it broke >&2; exit 3"),
                localExec("touch never-ran")),
            sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.error())
        .contains("step 0 (local-exec)")
        .contains("exit status 3")
        .contains("doing it")
        .contains("it broke");
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("doing it");
    assertThat(sink.of(LogStream.STDERR)).containsExactly("it broke");
    assertThat(dir.resolve("never-ran")).doesNotExist();
  }

  @Test
  void continuesWithTheNextStepWhenOnFailureIsContinue() {
    ActionResult result =
        runner.run(
            action("create", localExec("exit 3").onFailure("continue"), localExec("echo after")),
            sink);

    assertThat(result).isEqualTo(ActionResult.succeeded());
    assertThat(sink.of(LogStream.SYSTEM))
        .anyMatch(l -> l.startsWith("Error ignored (on_failure = continue)") && l.contains("3"));
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("after");
  }

  @Test
  void appliesEnvironmentAndWorkingDirRelativeToTheExecutorDirectory() throws Exception {
    Files.createDirectory(dir.resolve("sub"));

    ActionResult result =
        runner.run(
            action(
                "create",
                localExec("echo \"$GREETING from $(pwd -P)\"; echo \"$PATH\" | grep -q bin")
                    .environment(Map.of("GREETING", "hello"))
                    .workingDir("sub")),
            sink);

    assertThat(result).isEqualTo(ActionResult.succeeded());
    assertThat(sink.of(LogStream.STDOUT))
        .containsExactly("hello from " + dir.resolve("sub").toRealPath());
  }

  @Test
  void runsTheCommandWithTheGivenInterpreter() {
    runner.run(
        action("create", localExec("echo via env").interpreter("/usr/bin/env", "sh", "-c")), sink);

    assertThat(sink.lines)
        .containsExactly(
            "system: Executing: [\"/usr/bin/env\" \"sh\" \"-c\" \"echo via env\"]",
            "stdout: via env");
  }

  @Test
  void redactsSensitiveValuesFromOutputEchoAndError() {
    ActionResult result =
        runner.run(
            action(
                "create",
                List.of("s3cr3t"),
                localExec("echo token=s3cr3t; echo s3cr3t >&2; exit 1")),
            sink);

    assertThat(sink.lines).noneMatch(l -> l.contains("s3cr3t"));
    assertThat(sink.of(LogStream.STDOUT)).containsExactly("token=(sensitive value)");
    assertThat(sink.of(LogStream.STDERR)).containsExactly("(sensitive value)");
    assertThat(sink.of(LogStream.SYSTEM).getFirst())
        .isEqualTo(
            "Executing: [\"/bin/sh\" \"-c\" \"echo token=(sensitive value); echo (sensitive value)"
                + " >&2; exit 1\"]");
    assertThat(result.error()).doesNotContain("s3cr3t").contains("token=(sensitive value)");
  }

  @Test
  void hidesTheCommandOfASensitiveStepInTheEchoLine() {
    runner.run(action("create", localExec("echo hi").sensitive()), sink);

    assertThat(sink.lines)
        .containsExactly(
            "system: Executing: [\"/bin/sh\" \"-c\" \"(sensitive value)\"]", "stdout: hi");
  }

  @Test
  void failsClearlyOnUnsupportedProvisionerWithoutRunningAnyStep() {
    ActionResult result =
        runner.run(action("create", localExec("touch ran"), provisioner("chef")), sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.exitCode()).isNull();
    assertThat(result.error()).contains("provisioner chef is not supported by this executor yet");
    assertThat(sink.of(LogStream.SYSTEM))
        .containsExactly("Error: provisioner chef is not supported by this executor yet (step 1)");
    assertThat(dir.resolve("ran")).doesNotExist();
  }

  @Test
  void createRunsCreateTimeStepsDeleteDestroyTimeAndReplaceDestroyTimeThenCreateTime() {
    var create = localExec("echo create");
    var destroy = localExec("echo destroy").when("destroy");

    runner.run(action("create", create, destroy), sink);
    runner.run(action("replace", create, destroy), sink);
    runner.run(action("delete", create, destroy), sink);

    assertThat(sink.of(LogStream.STDOUT)).containsExactly("create", "destroy", "create", "destroy");
  }

  @Test
  void deleteWithoutDestroyProvisionersSucceedsWithoutRunningAnything() {
    ActionResult result = runner.run(action("delete", localExec("touch ran")), sink);

    assertThat(result).isEqualTo(ActionResult.succeeded());
    assertThat(sink.lines).isEmpty();
    assertThat(dir.resolve("ran")).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"update", "forget"})
  void updateAndForgetRunNothing(String kind) {
    ActionResult result =
        runner.run(
            action(kind, localExec("touch ran"), localExec("touch ran").when("destroy")), sink);

    assertThat(result).isEqualTo(ActionResult.succeeded());
    assertThat(sink.lines).isEmpty();
    assertThat(dir.resolve("ran")).doesNotExist();
  }

  @Test
  void failsWhenTheWorkingDirDoesNotExist() {
    ActionResult result =
        runner.run(action("create", localExec("echo hi").workingDir("missing")), sink);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.error()).contains("working_dir").contains("missing");
  }

  @Test
  void interruptingTheRunnerKillsTheCommandAndFailsTheAction() throws Exception {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    AtomicReference<Thread> worker = new AtomicReference<>();
    CompletableFuture<ActionResult> result =
        CompletableFuture.supplyAsync(
            () -> {
              worker.set(Thread.currentThread());
              return runner.run(
                  action("create", localExec("echo started; exec sleep 600").onFailure("continue")),
                  (step, stream, line) -> lines.add(line));
            },
            threads);
    assertThat(lines.poll(30, TimeUnit.SECONDS)).startsWith("Executing:");
    assertThat(lines.poll(30, TimeUnit.SECONDS)).isEqualTo("started");

    worker.get().interrupt();

    ActionResult interrupted = result.get(30, TimeUnit.SECONDS);
    assertThat(interrupted.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(interrupted.error()).contains("interrupted");
  }

  @Test
  void aKilledShellNeverGoesOnToItsNextCommand() throws Exception {
    Path done = dir.resolve("done-" + System.nanoTime());
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    AtomicReference<Thread> worker = new AtomicReference<>();
    CompletableFuture<ActionResult> result =
        CompletableFuture.supplyAsync(
            () -> {
              worker.set(Thread.currentThread());
              return runner.run(
                  action("create", localExec("echo started; sleep 600; echo done > " + done)),
                  (step, stream, line) -> lines.add(line));
            },
            threads);
    assertThat(lines.poll(30, TimeUnit.SECONDS)).startsWith("Executing:");
    assertThat(lines.poll(30, TimeUnit.SECONDS)).isEqualTo("started");

    worker.get().interrupt();

    assertThat(result.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.FAILED);
    // the shell was stopped before its child: it did not run "echo done", and nothing is left
    assertThat(done).doesNotExist();
    assertThat(
            ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(done.toString())))
        .isEmpty();
  }
}
