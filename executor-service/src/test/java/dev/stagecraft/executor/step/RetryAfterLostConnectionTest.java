package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.Fixtures.RecordingSink;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import dev.stagecraft.sshtestkit.TcpProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A step marked safe to retry survives a connection cut while it runs: real OpenSSH behind a proxy
 * the test cuts; the action runner retries the step over a new connection.
 */
class RetryAfterLostConnectionTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  @TempDir Path dir;
  private final RecordingSink sink = new RecordingSink();

  private ActionDispatched action(SshConnection connection, Path marker, int retries) {
    // The first attempt leaves a marker and then blocks; a later one sees it and finishes.
    ProvisionerStep step =
        Fixtures.remoteExec(
            connection,
            List.of(
                "echo attempt",
                "if [ ! -f " + marker + " ]; then touch " + marker + "; sleep 4141; fi",
                "echo finished"),
            600,
            retries);
    return new ActionDispatched(
        "run-1",
        "action-1",
        "stateful_provisioning.app",
        "stateful_provisioning",
        "create",
        Map.of(),
        List.of(),
        List.of(step),
        7,
        List.of());
  }

  @Test
  void aStepWithRetriesIsRunAgainAfterItsConnectionWasCut() throws Exception {
    AtomicInteger n = new AtomicInteger();
    ActionRunner runner =
        new ActionRunner(
            dir,
            new SshjRemoteConnector(),
            () -> dir.resolve("script-" + n.incrementAndGet() + ".sh").toString());
    Path marker = dir.resolve("marker");
    try (TcpProxy proxy = new TcpProxy(SSHD.host(), SSHD.port())) {
      SshConnection connection =
          new SshConnection(
              proxy.host(),
              proxy.port(),
              SSHD.user(),
              null,
              SSHD.ed25519Key(),
              null,
              SSHD.hostKey(),
              30,
              null);
      CompletableFuture<ActionResult> running =
          CompletableFuture.supplyAsync(() -> runner.run(action(connection, marker, 1), sink));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> sink.of(LogStream.STDOUT).contains("attempt") && marker.toFile().exists());

      proxy.sever();

      ActionResult result = running.get(60, TimeUnit.SECONDS);
      assertThat(result.isSucceeded()).as(String.valueOf(result.error())).isTrue();
      assertThat(sink.of(LogStream.STDOUT)).containsExactly("attempt", "attempt", "finished");
      assertThat(sink.of(LogStream.SYSTEM))
          .anyMatch(l -> l.startsWith("retry 1/1 after connection lost: connection to "));
      assertThat(proxy.accepted()).isEqualTo(2);
    } finally {
      ProcessHandle.allProcesses()
          .filter(
              p ->
                  p.info().command().map(c -> c.endsWith("/sleep")).orElse(false)
                      && p.info()
                          .arguments()
                          .map(a -> List.of(a).equals(List.of("4141")))
                          .orElse(false))
          .forEach(ProcessHandle::destroyForcibly);
    }
  }
}
