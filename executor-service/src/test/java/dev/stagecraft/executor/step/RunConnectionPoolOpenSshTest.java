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
import dev.stagecraft.sshtestkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run connection pool over sshj against a real OpenSSH sshd, reached through a TCP proxy that
 * counts the connections the client really opens and can sever them.
 */
class RunConnectionPoolOpenSshTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private TcpProxy proxy;
  private RunConnectionPool pool;
  private ActionRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    proxy = new TcpProxy(SSHD.host(), SSHD.port());
    // The runner's own connector must never be used: every action passes its lease.
    runner = new ActionRunner(dir, RemoteConnector.UNAVAILABLE);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (pool != null) {
      pool.close();
    }
    proxy.close();
  }

  private RunConnectionPool pool(Duration idle, Duration linger) {
    pool = new RunConnectionPool(new SshjRemoteConnector(), idle, linger, 10);
    return pool;
  }

  private SshConnection viaProxy() throws Exception {
    return new SshConnection(
        "127.0.0.1", proxy.port(), SSHD.user(), null, SSHD.ed25519Key(), null, null, 30, null);
  }

  /** An action of {@code runId} whose one remote-exec step appends {@code word} to out.txt. */
  private ActionDispatched action(String runId, String actionId, String word) throws Exception {
    ProvisionerStep step =
        Fixtures.remoteExec(
            viaProxy(), List.of("echo " + word + " >> " + dir.resolve("out.txt")), 0, 0);
    return new ActionDispatched(
        runId,
        actionId,
        "stateful_provisioning." + actionId,
        "stateful_provisioning",
        "create",
        Map.of(),
        List.of(),
        List.of(step),
        1,
        List.of());
  }

  private ActionResult run(String tenant, ActionDispatched action) {
    try (RunConnections lease = pool.open(tenant, action.runId())) {
      return runner.run(action, new RecordingSink(), lease);
    }
  }

  private List<String> written() throws Exception {
    return Files.readAllLines(dir.resolve("out.txt"), StandardCharsets.UTF_8);
  }

  @Test
  void twoActionsOfOneRunToTheSameHostReuseOneTcpConnection() throws Exception {
    pool(LONG, LONG);
    // one after the other, as a dependent action is dispatched after the previous one finished
    assertThat(run("acme", action("run-1", "a", "first")).outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(run("acme", action("run-1", "b", "second")).outcome()).isEqualTo(Outcome.SUCCEEDED);

    assertThat(written()).containsExactly("first", "second");
    assertThat(proxy.accepted()).isEqualTo(1);
  }

  @Test
  void actionsOfDifferentRunsOrTenantsNeverShareAConnection() throws Exception {
    pool(LONG, LONG);
    assertThat(run("acme", action("run-1", "a", "one")).isSucceeded()).isTrue();
    assertThat(run("acme", action("run-2", "a", "two")).isSucceeded()).isTrue();
    assertThat(run("globex", action("run-1", "a", "three")).isSucceeded()).isTrue();

    assertThat(written()).containsExactly("one", "two", "three");
    assertThat(proxy.accepted()).isEqualTo(3);
  }

  @Test
  void aSeveredConnectionIsNeverHandedOutAgainAndIsReplaced() throws Exception {
    pool(LONG, LONG);
    assertThat(run("acme", action("run-1", "a", "before")).isSucceeded()).isTrue();
    assertThat(pool.openConnections()).isEqualTo(1);

    proxy.sever();
    await().atMost(WAIT).until(() -> pool.openConnections() == 0);

    assertThat(run("acme", action("run-1", "b", "after")).isSucceeded()).isTrue();
    assertThat(written()).containsExactly("before", "after");
    assertThat(proxy.accepted()).isEqualTo(2);
  }

  @Test
  void anIdleConnectionClosesAfterTheIdleTimeout() throws Exception {
    pool(Duration.ofMillis(300), LONG);
    try (RunConnections stillRunning = pool.open("acme", "run-1")) {
      assertThat(run("acme", action("run-1", "a", "x")).isSucceeded()).isTrue();
      // The run still has an action here, so only the idle timeout can close the connection.
      await().atMost(WAIT).until(() -> proxy.open() == 0);
      assertThat(pool.openConnections()).isZero();
    }
    assertThat(proxy.accepted()).isEqualTo(1);
  }

  @Test
  void aRunsConnectionsCloseWhenItsLastActionEnds() throws Exception {
    pool(LONG, Duration.ZERO);
    RunConnections other = pool.open("acme", "run-1");
    assertThat(run("acme", action("run-1", "a", "x")).isSucceeded()).isTrue();
    assertThat(proxy.open()).isEqualTo(1); // another action of the run is still running

    other.close();
    await().atMost(WAIT).until(() -> proxy.open() == 0);
    assertThat(pool.openConnections()).isZero();
  }

  @Test
  void concurrentBorrowersStayWithinTheServersMaxSessionsAndAllRun() throws Exception {
    pool(LONG, LONG); // MaxSessions 10 (OpenSSH's default): 4 borrowers per connection
    int borrowers = 8;
    List<RemoteSession> sessions = new ArrayList<>();
    try (RunConnections lease = pool.open("acme", "run-1")) {
      for (int i = 0; i < borrowers; i++) {
        sessions.add(lease.connect(viaProxy(), n -> {}));
      }
      assertThat(proxy.accepted()).isEqualTo(2);
      try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<Integer>> exits = new ArrayList<>();
        for (int i = 0; i < borrowers; i++) {
          RemoteSession session = sessions.get(i);
          Path file = dir.resolve("file-" + i);
          exits.add(
              threads.submit(
                  () -> {
                    // every borrower uses its command channel and the shared SFTP channel at once
                    session.upload(file.toString(), "x".getBytes(StandardCharsets.UTF_8), 0644);
                    return session.exec("test -f " + file, (s, l) -> {}, null);
                  }));
        }
        for (Future<Integer> exit : exits) {
          assertThat(exit.get()).isZero();
        }
      }
      sessions.forEach(RemoteSession::close);
    }
    assertThat(proxy.accepted()).isEqualTo(2);
  }
}
