package dev.stagecraft.executor.sandbox;

import static dev.stagecraft.executor.sandbox.BubblewrapSandboxTest.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.sandbox.BubblewrapSandboxTest.Result;
import dev.stagecraft.executor.step.LocalCommands;
import dev.stagecraft.executor.step.LocalCommands.ActionIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The steps of one action share one sandbox ({@link StepServer}) and still behave as commands of
 * their own: separate output streams, exact environments, nothing left running after a step, a kill
 * that ends the step only, and a new server when a step took the old one down.
 */
class StepServerTest {
  static Path directory;
  static BubblewrapSandbox sandbox;

  @BeforeAll
  static void createSandbox() throws Exception {
    directory = Path.of("target", "steps-" + ProcessHandle.current().pid()).toAbsolutePath();
    sandbox =
        BubblewrapSandbox.create(
            SandboxSettings.defaults(directory)
                .withUids(BubblewrapSandboxTest.FIRST_UID + 400, 20));
  }

  @AfterAll
  static void removeDirectory() throws IOException {
    SandboxTestFiles.deleteTree(directory);
  }

  static LocalCommands.Session open() throws LocalCommands.Unavailable {
    return sandbox.open(new ActionIdentity("run-test", "run-test/steps"));
  }

  @Test
  void standardOutputAndErrorStayApartAndEachStepGetsExactlyItsOwnEnvironment() throws Exception {
    String tricky = "a'b\"c $(id) `id` ${HOME}\n\\ \u00e9 end";
    try (var session = open()) {
      Process p =
          session.start(
              List.of("/bin/sh", "-c", "printf %s \"$X\"; echo to-err >&2; exit 3"),
              Map.of("X", tricky, "ONLY_FIRST", "1"),
              null);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

      assertThat(p.exitValue()).isEqualTo(3);
      assertThat(out).isEqualTo(tricky); // quoted as data: no substitution, no expansion
      assertThat(err).isEqualTo("to-err\n");
      assertThat(sh(session, "echo ${ONLY_FIRST:-unset}").output()).isEqualTo("unset\n");
    }
  }

  @Test
  void nothingAStepStartedOutlivesIt() throws Exception {
    try (var session = open()) {
      Result first =
          sh(
              session,
              "sleep 300 & (setsid sleep 301 &) ; nohup sleep 302 >/dev/null 2>&1 & echo ok");
      assertThat(first.output()).isEqualTo("ok\n");

      Result second = sh(session, "ps -eo args | grep -c '^sleep' || true");
      assertThat(second.output()).isEqualTo("0\n");
    }
  }

  @Test
  void killingAStepEndsItAndEverythingItStartedButNotTheActionsSandbox() throws Exception {
    try (var session = open()) {
      sh(session, "echo kept > file");
      Process p = session.start(List.of("/bin/sh", "-c", "sleep 301 & sleep 300"), Map.of(), null);
      assertThat(p.waitFor(200, TimeUnit.MILLISECONDS)).isFalse();

      p.destroy();

      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isNotZero();
      assertThat(p.getInputStream().readAllBytes()).isEmpty(); // end of file: nothing holds it
      assertThat(sh(session, "cat file; ps -eo args | grep -c '^sleep' || true").output())
          .isEqualTo("kept\n0\n");
    }
  }

  @Test
  void aStepThatKillsTheSandboxFailsAndTheNextStepGetsANewOneWithTheSameFiles() throws Exception {
    try (var session = open()) {
      sh(session, "echo kept > file");

      Result killer = sh(session, "kill -KILL $PPID; sleep 5");
      assertThat(killer.exit()).isEqualTo(StepServer.SANDBOX_ENDED);

      assertThat(sh(session, "cat file").output()).isEqualTo("kept\n");
    }
  }
}
