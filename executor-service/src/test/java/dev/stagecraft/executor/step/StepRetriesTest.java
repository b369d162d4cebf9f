package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.step.Fixtures.RecordingSink;
import dev.stagecraft.executor.step.RemoteConnector.AuthenticationFailedException;
import dev.stagecraft.executor.step.RemoteSession.ConnectionLostException;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * {@code retries = N}: a step is run again only after a transient failure (no connection, or the
 * connection lost while it ran), with a growing pause, and each retry is announced. The SSH side is
 * a scripted fake: every connect and every command takes the next outcome from a queue.
 */
class StepRetriesTest {
  private static final SshConnection CONNECTION =
      new SshConnection("10.0.0.9", 22, "deploy", "pw-123456789", null, null, null, 5, null);

  private final RecordingSink sink = new RecordingSink();
  private final List<Duration> pauses = new ArrayList<>();
  private final ScriptedSsh ssh = new ScriptedSsh();
  private int scripts;

  private ActionResult run(int retries) {
    ActionOutput out = new ActionOutput(sink, new Redactor(List.of("pw-123456789")));
    try (RemoteSteps steps =
        new RemoteSteps(ssh, out, () -> "/tmp/script-" + ++scripts + ".sh", pauses::add)) {
      return steps.remoteExec(0, step(retries));
    }
  }

  private static ProvisionerStep step(int retries) {
    return Fixtures.remoteExec(CONNECTION, List.of("systemctl restart app"), 0, retries);
  }

  @Test
  void aConnectionLostMidStepIsRetriedAndTheRetryCanSucceed() {
    ssh.commands.add(new ConnectionLostException("connection to deploy@10.0.0.9:22 lost"));
    ssh.commands.add(0);

    ActionResult result = run(3);

    assertThat(result.isSucceeded()).isTrue();
    assertThat(ssh.connects).isEqualTo(2);
    assertThat(ssh.execs).isEqualTo(2);
    assertThat(pauses).containsExactly(Duration.ofSeconds(1));
    assertThat(sink.of(LogStream.SYSTEM))
        .contains(
            "retry 1/3 after connection lost: connection to deploy@10.0.0.9:22 lost (in 1 s)");
  }

  @Test
  void aConnectionThatCannotBeEstablishedIsRetried() {
    ssh.connectFailures.add(new IOException("could not connect within 5 s: timeout"));
    ssh.commands.add(0);

    ActionResult result = run(1);

    assertThat(result.isSucceeded()).isTrue();
    assertThat(ssh.connects).isEqualTo(2);
    assertThat(sink.of(LogStream.SYSTEM))
        .contains(
            "retry 1/1 after connection could not be established: could not connect within 5 s:"
                + " timeout (in 1 s)");
  }

  @Test
  void aNonZeroExitStatusIsNeverRetried() {
    ssh.commands.add(3);

    ActionResult result = run(5);

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.error()).contains("exit status 3").doesNotContain("gave up");
    assertThat(ssh.execs).isEqualTo(1);
    assertThat(pauses).isEmpty();
    assertThat(sink.of(LogStream.SYSTEM)).noneMatch(l -> l.startsWith("retry"));
  }

  @Test
  void aStepTimeoutIsNeverRetried() {
    ssh.commands.add(new TimeoutException("command timed out"));

    ActionResult result = run(5);

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error()).contains("timed out");
    assertThat(ssh.execs).isEqualTo(1);
    assertThat(pauses).isEmpty();
  }

  @Test
  void rejectedCredentialsAreNeverRetried() {
    ssh.connectFailures.add(
        new AuthenticationFailedException(
            "authentication failed for deploy@10.0.0.9:22 (tried password)"));

    ActionResult result = run(5);

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error()).contains("authentication failed for deploy@10.0.0.9:22");
    assertThat(ssh.connects).isEqualTo(1);
    assertThat(pauses).isEmpty();
  }

  @Test
  void anotherIoErrorOnALiveConnectionIsNotTransient() {
    // e.g. SFTP "permission denied": running it again changes nothing
    ssh.uploadFailures.add(new IOException("Permission denied"));

    ActionResult result = run(5);

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error()).contains("Permission denied");
    assertThat(pauses).isEmpty();
  }

  @Test
  void withoutRetriesATransientFailureFailsTheStepAtOnce() {
    ssh.commands.add(new ConnectionLostException("connection to deploy@10.0.0.9:22 lost"));

    ActionResult result = run(0);

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error()).contains("lost").doesNotContain("gave up");
    assertThat(ssh.execs).isEqualTo(1);
  }

  @Test
  void whenRetriesRunOutTheErrorSaysSoWithTheLastFailure() {
    for (int i = 0; i < 3; i++) {
      ssh.commands.add(new ConnectionLostException("connection to deploy@10.0.0.9:22 lost #" + i));
    }

    ActionResult result = run(2);

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error())
        .isEqualTo(
            "step 0 (remote-exec): connection to deploy@10.0.0.9:22 lost #2 (gave up after 2"
                + " retries)");
    assertThat(ssh.execs).isEqualTo(3);
    assertThat(pauses).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(sink.of(LogStream.SYSTEM))
        .filteredOn(l -> l.startsWith("retry"))
        .containsExactly(
            "retry 1/2 after connection lost: connection to deploy@10.0.0.9:22 lost #0 (in 1 s)",
            "retry 2/2 after connection lost: connection to deploy@10.0.0.9:22 lost #1 (in 2 s)");
  }

  @Test
  void thePauseDoublesUpToACap() {
    assertThat(RemoteSteps.retryPause(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(RemoteSteps.retryPause(3)).isEqualTo(Duration.ofSeconds(4));
    assertThat(RemoteSteps.retryPause(6))
        .isEqualTo(Duration.ofSeconds(RemoteSteps.MAX_RETRY_PAUSE_SECONDS));
    assertThat(RemoteSteps.retryPause(1000))
        .isEqualTo(Duration.ofSeconds(RemoteSteps.MAX_RETRY_PAUSE_SECONDS));
  }

  @Test
  void anInterruptDuringThePauseEndsTheStepWithoutAnotherAttempt() {
    ssh.commands.add(new ConnectionLostException("connection to deploy@10.0.0.9:22 lost"));
    ssh.commands.add(0);
    ActionOutput out = new ActionOutput(sink, new Redactor(List.of()));
    ActionResult result;
    try (RemoteSteps steps =
        new RemoteSteps(
            ssh,
            out,
            () -> "/tmp/s.sh",
            pause -> {
              throw new InterruptedException();
            })) {
      result = steps.remoteExec(0, step(3));
    } finally {
      Thread.interrupted(); // clear the flag the step restored
    }

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error()).contains("interrupted");
    assertThat(ssh.execs).isEqualTo(1);
  }

  /** Connects and runs commands as scripted; what is not scripted succeeds. */
  private static final class ScriptedSsh implements RemoteConnector {
    final Deque<IOException> connectFailures = new ArrayDeque<>();
    final Deque<IOException> uploadFailures = new ArrayDeque<>();

    /** An exit status (Integer) or an exception to throw, per command run. */
    final Deque<Object> commands = new ArrayDeque<>();

    int connects;
    int execs;

    @Override
    public RemoteSession connect(
        SshConnection connection, java.util.function.Consumer<String> notices) throws IOException {
      connects++;
      IOException failure = connectFailures.poll();
      if (failure != null) {
        throw failure;
      }
      return new RemoteSession() {
        @Override
        public int exec(String command, LineSink output, Duration timeout)
            throws IOException, TimeoutException {
          execs++;
          Object next = commands.poll();
          if (next instanceof IOException e) {
            throw e;
          }
          if (next instanceof TimeoutException e) {
            throw e;
          }
          return next == null ? 0 : (Integer) next;
        }

        @Override
        public void upload(String path, byte[] content, int mode) throws IOException {
          IOException failure = uploadFailures.poll();
          if (failure != null) {
            throw failure;
          }
        }

        @Override
        public void remove(String path) {}

        @Override
        public void close() {}
      };
    }
  }
}
