package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.executor.step.RemoteConnector.HostKeyMismatchException;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.apache.sshd.server.SshServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SshjRemoteConnectorTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  private final SshjRemoteConnector connector = new SshjRemoteConnector();
  private final List<String> notices = Collections.synchronizedList(new ArrayList<>());
  private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  private SshConnection connection(String key, String hostKey, int timeoutSeconds) {
    return new SshConnection(
        SSHD.host(), SSHD.port(), SSHD.user(), null, key, null, hostKey, timeoutSeconds, null);
  }

  private RemoteSession.LineSink recording() {
    return (stream, line) -> lines.add(stream.wireName() + ": " + line);
  }

  private CompletableFuture<RemoteSession> connectAsync(SshConnection connection) {
    return ConnectCalls.connectAsync(connector, connection, notices::add, threads);
  }

  private static Throwable failureOf(CompletableFuture<RemoteSession> connecting) {
    return ConnectCalls.failureOf(connecting);
  }

  @Test
  void runsACommandWithAnOpenSshEd25519KeyAndAPinnedHostKey() throws Exception {
    try (RemoteSession session =
        connector.connect(connection(SSHD.ed25519Key(), SSHD.hostKey(), 30), notices::add)) {
      int exit = session.exec("echo hello; echo oops >&2; exit 4", recording(), null);

      assertThat(exit).isEqualTo(4);
      assertThat(lines).containsExactlyInAnyOrder("stdout: hello", "stderr: oops");
      assertThat(notices).isEmpty();
    }
  }

  @Test
  void authenticatesWithAPemRsaKey() throws Exception {
    try (RemoteSession session =
        connector.connect(connection(SSHD.rsaPemKey(), SSHD.hostKey(), 30), notices::add)) {
      assertThat(session.exec("true", recording(), null)).isZero();
    }
  }

  @Test
  void reportsTheFingerprintItTrustsOnFirstUseWhenNoHostKeyIsPinned() throws Exception {
    String fingerprint = HostKeyCheck.fingerprint(SSHD.hostKey().split(" ")[1]);
    try (RemoteSession session =
        connector.connect(connection(SSHD.ed25519Key(), null, 30), notices::add)) {
      assertThat(session.exec("true", recording(), null)).isZero();
      assertThat(notices)
          .singleElement()
          .asString()
          .contains(
              "no host_key set and no key known", "ssh-ed25519 " + fingerprint, "on first use");
    }
  }

  @Test
  void refusesAHostWhoseKeyDoesNotMatchThePinWithoutRetrying() throws Exception {
    // A long connection timeout: the mismatch must fail at once, not be retried until then.
    CompletableFuture<RemoteSession> connecting =
        connectAsync(connection(SSHD.ed25519Key(), SSHD.otherHostKey(), 600));

    assertThat(failureOf(connecting))
        .isInstanceOf(HostKeyMismatchException.class)
        .hasMessageContaining("host key changed for " + SSHD.host() + ":" + SSHD.port())
        .hasMessageContaining(
            "the host offered ssh-ed25519 " + HostKeyCheck.fingerprint(blob(SSHD.hostKey())))
        .hasMessageContaining(
            "ssh-ed25519 "
                + HostKeyCheck.fingerprint(blob(SSHD.otherHostKey()))
                + " (pinned host_key) was expected")
        .hasMessageContaining("pin it: host_key = \"" + SSHD.hostKey() + "\"")
        .hasMessageContaining("nothing was run");
  }

  private static String blob(String publicKey) {
    return publicKey.split(" ")[1];
  }

  @Test
  void acceptsAHostWhoseKeyIsAmongTheKnownKeysAndLearnsNothing() throws Exception {
    SshConnection known =
        connection(SSHD.ed25519Key(), null, 30)
            .withKnownHostKeys(
                List.of(
                    SSHD.otherHostKey() + " tenant known hosts",
                    SSHD.hostKey() + " tenant known hosts"));
    try (RemoteSession session = connector.connect(known, notices::add)) {
      assertThat(session.exec("true", recording(), null)).isZero();
      assertThat(session.learnedHostKeys()).isEmpty();
      assertThat(notices).isEmpty();
    }
  }

  @Test
  void refusesAHostWhoseKeyIsNotAmongTheKnownKeysWithoutRetrying() throws Exception {
    SshConnection known =
        connection(SSHD.ed25519Key(), null, 600)
            .withKnownHostKeys(List.of(SSHD.otherHostKey() + " first use in workspace prod"));

    assertThat(failureOf(connectAsync(known)))
        .isInstanceOf(HostKeyMismatchException.class)
        .hasMessageContaining("host key changed for " + SSHD.host() + ":" + SSHD.port())
        .hasMessageContaining(
            "the host offered ssh-ed25519 " + HostKeyCheck.fingerprint(blob(SSHD.hostKey())))
        .hasMessageContaining(
            "ssh-ed25519 "
                + HostKeyCheck.fingerprint(blob(SSHD.otherHostKey()))
                + " (first use in workspace prod) was expected")
        .hasMessageContaining(
            "`stagecraft known-hosts remove -workspace=prod "
                + SSHD.host()
                + ":"
                + SSHD.port()
                + "`")
        .hasMessageContaining("nothing was run");
  }

  @Test
  void aPinnedHostKeyWinsOverKnownKeys() throws Exception {
    SshConnection pinnedAndKnown =
        connection(SSHD.ed25519Key(), SSHD.hostKey(), 30)
            .withKnownHostKeys(List.of(SSHD.otherHostKey() + " tenant known hosts"));
    try (RemoteSession session = connector.connect(pinnedAndKnown, notices::add)) {
      assertThat(session.exec("true", recording(), null)).isZero();
      assertThat(session.learnedHostKeys()).isEmpty();
    }
  }

  @Test
  void reportsTheKeyOfAnUnknownHostAsLearned() throws Exception {
    try (RemoteSession session =
        connector.connect(connection(SSHD.ed25519Key(), null, 30), notices::add)) {
      assertThat(session.learnedHostKeys())
          .singleElement()
          .satisfies(
              key -> {
                assertThat(key.host()).isEqualTo(SSHD.host());
                assertThat(key.port()).isEqualTo(SSHD.port());
                assertThat(key.publicKey()).isEqualTo(SSHD.hostKey());
                assertThat(key.fingerprint())
                    .isEqualTo(HostKeyCheck.fingerprint(blob(SSHD.hostKey())));
              });
    }
  }

  @Test
  void learnsTheKeysOfAnUnknownBastionAndTargetAndEnforcesKnownBastionKeys() throws Exception {
    SshConnection.Bastion hop =
        new SshConnection.Bastion(
            SSHD.host(), SSHD.port(), SSHD.user(), null, SSHD.rsaPemKey(), null);
    SshConnection viaUnknown = connection(SSHD.ed25519Key(), null, 30).withBastions(List.of(hop));
    try (RemoteSession session = connector.connect(viaUnknown, notices::add)) {
      assertThat(session.learnedHostKeys())
          .extracting(k -> k.host() + ":" + k.port() + " " + k.publicKey())
          .containsExactly(
              SSHD.host() + ":" + SSHD.port() + " " + SSHD.hostKey(),
              SSHD.host() + ":" + SSHD.port() + " " + SSHD.hostKey());
    }

    SshConnection viaChangedBastion =
        connection(SSHD.ed25519Key(), SSHD.hostKey(), 600)
            .withBastions(
                List.of(
                    hop.withKnownHostKeys(
                        List.of(SSHD.otherHostKey() + " first use in workspace prod"))));
    assertThat(failureOf(connectAsync(viaChangedBastion)))
        .isInstanceOf(HostKeyMismatchException.class)
        .hasMessageContaining("host key changed for " + SSHD.host() + ":" + SSHD.port())
        .hasMessageContaining("(first use in workspace prod) was expected");
  }

  @Test
  void givesUpOnARefusedPortAfterTheConnectionTimeoutWithTheLastError() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    CompletableFuture<RemoteSession> connecting =
        connectAsync(
            new SshConnection(
                "127.0.0.1", closedPort, "root", null, SSHD.ed25519Key(), null, null, 2, null));

    assertThat(failureOf(connecting))
        .hasMessageContaining("within 2 s: timeout - last error:")
        .hasMessageContaining("Connection refused");
  }

  @Test
  void givesUpOnAServerThatAcceptsButNeverAnswers() throws Exception {
    List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
    try (ServerSocket silent = new ServerSocket(0)) {
      threads.execute(
          () -> {
            try {
              while (true) {
                accepted.add(silent.accept());
              }
            } catch (IOException e) {
              // closed at the end of the test
            }
          });
      CompletableFuture<RemoteSession> connecting =
          connectAsync(
              new SshConnection(
                  "127.0.0.1",
                  silent.getLocalPort(),
                  "root",
                  null,
                  SSHD.ed25519Key(),
                  null,
                  null,
                  2,
                  null));

      assertThat(failureOf(connecting)).hasMessageContaining("timeout - last error:");
      assertThat(accepted).isNotEmpty();
    } finally {
      for (Socket socket : accepted) {
        socket.close();
      }
    }
  }

  @Test
  void killsACommandThatOutlivesItsTimeout() throws Exception {
    try (RemoteSession session =
        connector.connect(connection(SSHD.ed25519Key(), SSHD.hostKey(), 30), notices::add)) {
      assertThatThrownBy(
              () ->
                  session.exec(
                      "echo started; sleep 3737; echo never", recording(), Duration.ofSeconds(1)))
          .isInstanceOf(TimeoutException.class);

      await().atMost(Duration.ofSeconds(30)).until(() -> !sleepRunning("3737"));
      assertThat(lines).doesNotContain("stdout: never");
      // The connection stays usable for the next step.
      assertThat(session.exec("true", recording(), null)).isZero();
    }
  }

  @Test
  void reachesTheTargetThroughOneBastion() throws Exception {
    // The bastion and the target are the same sshd: the hop is a direct-tcpip channel to itself.
    SshConnection viaBastion =
        new SshConnection(
            SSHD.host(),
            SSHD.port(),
            SSHD.user(),
            null,
            SSHD.ed25519Key(),
            null,
            SSHD.hostKey(),
            30,
            List.of(
                new SshConnection.Bastion(
                    SSHD.host(),
                    SSHD.port(),
                    SSHD.user(),
                    null,
                    SSHD.rsaPemKey(),
                    SSHD.hostKey())));
    try (RemoteSession session = connector.connect(viaBastion, notices::add)) {
      assertThat(session.exec("echo via-bastion", recording(), null)).isZero();
      assertThat(lines).containsExactly("stdout: via-bastion");
    }
  }

  @Test
  void authenticatesWithAPassword() throws Exception {
    // A real sshd would need a real account password; Apache MINA SSHD checks it in-process.
    SshServer server = PasswordSshServer.start();
    try {
      try (RemoteSession session =
          connector.connect(
              new SshConnection(
                  "127.0.0.1", server.getPort(), "deploy", "s3cret", null, null, null, 10, null),
              notices::add)) {
        assertThat(session).isNotNull();
      }
      CompletableFuture<RemoteSession> wrong =
          connectAsync(
              new SshConnection(
                  "127.0.0.1", server.getPort(), "deploy", "wrong", null, null, null, 2, null));
      // rejected credentials are permanent: reported at once, not retried until the timeout
      assertThat(failureOf(wrong))
          .hasMessageContaining("authentication failed for deploy@127.0.0.1:")
          .hasMessageNotContaining("wrong");
    } finally {
      server.stop(true);
    }
  }

  /** Whether a {@code sleep <seconds>} process is running on this machine (sshd is local). */
  static boolean sleepRunning(String seconds) {
    return ProcessHandle.allProcesses()
        .anyMatch(
            p ->
                p.info().command().map(c -> c.endsWith("/sleep")).orElse(false)
                    && p.info()
                        .arguments()
                        .map(a -> List.of(a).equals(List.of(seconds)))
                        .orElse(false));
  }
}
