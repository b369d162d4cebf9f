package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.executor.step.RemoteConnector.AuthenticationFailedException;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.executor.step.RemoteSession.ConnectionLostException;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import dev.stagecraft.sshtestkit.TcpProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.sshd.server.SshServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SSH never hangs: each fault ends with a clear error within the time configured for it. The faults
 * are made with what we control — a silent {@link ServerSocket}, a {@link TcpProxy} in front of a
 * real OpenSSH sshd, Apache MINA SSHD — and the bounds are the configured timeouts plus a generous
 * margin ({@link #MARGIN}), never a tight wall-clock.
 *
 * <p>(The command that outlives its step timeout is {@code
 * SshjRemoteConnectorTest#killsACommandThatOutlivesItsTimeout} and {@code
 * RemoteProvisionersTest#killsACommandThatOutlivesTheStepTimeout}.)
 */
class SshFaultsTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  private static final Duration MARGIN = Duration.ofSeconds(30);
  private static final int KEEP_ALIVE_SECONDS = 1;
  private static final int KEEP_ALIVE_MAX_UNANSWERED = 3;

  private final SshjRemoteConnector connector =
      new SshjRemoteConnector(KEEP_ALIVE_SECONDS, KEEP_ALIVE_MAX_UNANSWERED);
  private final List<String> notices = Collections.synchronizedList(new ArrayList<>());
  private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  /** The failure of {@code call}, which must end within {@code bound}. */
  private Throwable failureWithin(Duration bound, Callable<?> call) {
    CompletableFuture<Object> future = new CompletableFuture<>();
    threads.execute(
        () -> {
          try {
            future.complete(call.call());
          } catch (Throwable e) {
            future.completeExceptionally(e);
          }
        });
    try {
      Object result = future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a failure, got " + result);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("still running after " + bound + ": it hangs", e);
    }
  }

  private SshConnection viaProxy(TcpProxy proxy, int timeoutSeconds) throws IOException {
    return new SshConnection(
        proxy.host(),
        proxy.port(),
        SSHD.user(),
        null,
        SSHD.ed25519Key(),
        null,
        SSHD.hostKey(),
        timeoutSeconds,
        null);
  }

  @Test
  void aServerThatAcceptsTcpButNeverSendsABannerFailsWhenTheConnectionTimeoutRunsOut()
      throws Exception {
    List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
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
      int timeout = 3;
      SshConnection connection =
          new SshConnection(
              "127.0.0.1",
              silent.getLocalPort(),
              "deploy",
              null,
              SSHD.ed25519Key(),
              null,
              null,
              timeout,
              null);

      Throwable failure =
          failureWithin(
              Duration.ofSeconds(timeout).plus(MARGIN),
              () -> connector.connect(connection, notices::add));

      assertThat(failure)
          .isInstanceOf(IOException.class)
          .hasMessageContaining(
              "could not connect to deploy@127.0.0.1:" + silent.getLocalPort() + " within 3 s")
          .hasMessageContaining("no SSH handshake from 127.0.0.1:" + silent.getLocalPort());
      assertThat(accepted).isNotEmpty();
    } finally {
      for (Socket socket : accepted) {
        socket.close();
      }
    }
  }

  @Test
  void aConnectionCutMidCommandEndsTheCommandWithConnectionLost() throws Exception {
    try (TcpProxy proxy = new TcpProxy(SSHD.host(), SSHD.port());
        RemoteSession session = connector.connect(viaProxy(proxy, 30), notices::add)) {
      CompletableFuture<Integer> running = runAsync(session, "echo started; sleep 3838");
      await().atMost(Duration.ofSeconds(30)).until(() -> lines.contains("stdout: started"));

      proxy.sever();

      Throwable failure = failureWithin(MARGIN, running::get);
      assertThat(unwrap(failure))
          .isInstanceOf(ConnectionLostException.class)
          .hasMessageContaining(
              "connection to " + SSHD.user() + "@" + proxy.host() + ":" + proxy.port() + " lost")
          .hasMessageContaining("while the command ran")
          .hasMessageContaining("its effect is unknown");
    } finally {
      killLocalSleep("3838");
    }
  }

  @Test
  void aPeerThatVanishesSilentlyIsDetectedByKeepAlivesWithinSeconds() throws Exception {
    try (TcpProxy proxy = new TcpProxy(SSHD.host(), SSHD.port());
        RemoteSession session = connector.connect(viaProxy(proxy, 30), notices::add)) {
      CompletableFuture<Integer> running = runAsync(session, "echo started; sleep 3939");
      await().atMost(Duration.ofSeconds(30)).until(() -> lines.contains("stdout: started"));

      // No FIN, no reset: only unanswered keep-alives can tell (the command has no timeout).
      proxy.blackHole();

      Throwable failure =
          failureWithin(
              Duration.ofSeconds((long) KEEP_ALIVE_SECONDS * (KEEP_ALIVE_MAX_UNANSWERED + 1))
                  .plus(MARGIN),
              running::get);
      assertThat(unwrap(failure))
          .isInstanceOf(ConnectionLostException.class)
          .hasMessageContaining("lost while the command ran")
          .hasMessageContaining("keep-alive");
    } finally {
      killLocalSleep("3939");
    }
  }

  @Test
  void aWrongKeyFailsAtOnceInsteadOfBeingRetriedUntilTheTimeout() throws Exception {
    // 10 minutes of connection timeout: only failing fast can end this within the margin.
    SshConnection wrongKey =
        new SshConnection(
            SSHD.host(),
            SSHD.port(),
            SSHD.user(),
            null,
            SSHD.unauthorizedKey(),
            null,
            SSHD.hostKey(),
            600,
            null);

    Throwable failure = failureWithin(MARGIN, () -> connector.connect(wrongKey, notices::add));

    assertThat(failure)
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining(
            "authentication failed for "
                + SSHD.user()
                + "@"
                + SSHD.host()
                + ":"
                + SSHD.port()
                + " (tried publickey) — check private_key/password/user")
        .hasMessageNotContaining("PRIVATE KEY");
  }

  @Test
  void aWrongPasswordFailsAtOnceNamingTheMethodsTriedButNotThePassword() throws Exception {
    // Apache MINA SSHD checks the password in-process (a real sshd needs a real account).
    SshServer server = PasswordSshServer.start();
    try {
      SshConnection wrong =
          new SshConnection(
              "127.0.0.1", server.getPort(), "deploy", "wrong-pw", null, null, null, 600, null);

      Throwable failure = failureWithin(MARGIN, () -> connector.connect(wrong, notices::add));

      assertThat(failure)
          .isInstanceOf(AuthenticationFailedException.class)
          .hasMessageContaining(
              "authentication failed for deploy@127.0.0.1:"
                  + server.getPort()
                  + " (tried password)")
          .hasMessageNotContaining("wrong-pw");
    } finally {
      server.stop(true);
    }
  }

  private CompletableFuture<Integer> runAsync(RemoteSession session, String command) {
    CompletableFuture<Integer> future = new CompletableFuture<>();
    threads.execute(
        () -> {
          try {
            future.complete(
                session.exec(
                    command, (stream, line) -> lines.add(stream.wireName() + ": " + line), null));
          } catch (Throwable e) {
            future.completeExceptionally(e);
          }
        });
    return future;
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof ExecutionException e ? e.getCause() : failure;
  }

  /** The remote command outlives a lost connection (no terminal, no hangup): end it here. */
  private static void killLocalSleep(String seconds) {
    ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info().command().map(c -> c.endsWith("/sleep")).orElse(false)
                    && p.info()
                        .arguments()
                        .map(a -> List.of(a).equals(List.of(seconds)))
                        .orElse(false))
        .forEach(ProcessHandle::destroyForcibly);
  }
}
