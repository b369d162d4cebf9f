package dev.stagecraft.executor.adapter.ssh;

import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import net.schmizz.keepalive.KeepAliveProvider;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.DirectConnection;
import net.schmizz.sshj.userauth.method.AuthMethod;
import net.schmizz.sshj.userauth.method.AuthPassword;
import net.schmizz.sshj.userauth.method.AuthPublickey;
import net.schmizz.sshj.userauth.password.PasswordUtils;

/**
 * {@link RemoteConnector} on sshj.
 *
 * <ul>
 *   <li><b>Retry.</b> A refused, reset or unanswered connection and a failed authentication (the
 *       key may not be installed yet while a machine boots) are retried with exponential backoff
 *       (250 ms doubling up to 10 s) until the connection timeout. Each attempt runs on its own
 *       virtual thread and is abandoned (its socket closed) when the deadline passes, so a server
 *       that accepts TCP but never speaks SSH cannot hold the caller longer than the timeout.
 *   <li><b>Host keys.</b> A pinned {@code hostKey} must match exactly (type and key); a mismatch
 *       fails at once, without retry and before authentication. Without a pin the key is accepted
 *       and its fingerprint reported through {@code notices} (trust on first use; recording it in
 *       state is not done yet).
 *   <li><b>Keep-alive.</b> {@code keepalive@openssh.com} every {@value #KEEP_ALIVE_SECONDS} s;
 *       after 5 unanswered ones sshj drops the connection, so a dead peer fails the step instead of
 *       hanging it.
 *   <li><b>Bastion.</b> One hop: the bastion is connected and authenticated first, then the target
 *       is reached through a {@code direct-tcpip} channel of the bastion.
 * </ul>
 *
 * <p>Thread-safe and stateless: every call builds its own clients.
 */
public final class SshjRemoteConnector implements RemoteConnector {
  static final int KEEP_ALIVE_SECONDS = 5;
  private static final int DEFAULT_PORT = 22;
  private static final String DEFAULT_USER = "root";
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  private static final Duration MAX_TCP_CONNECT = Duration.ofSeconds(10);
  private static final DefaultConfig CONFIG = config();

  private static DefaultConfig config() {
    DefaultConfig config = new DefaultConfig();
    // HEARTBEAT (the default) only sends ignore messages and never notices a dead peer.
    config.setKeepAliveProvider(KeepAliveProvider.KEEP_ALIVE);
    return config;
  }

  @Override
  public RemoteSession connect(SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException {
    if (connection.bastions().size() > 1) {
      throw new IOException(
          "only one bastion hop is supported yet (this connection has "
              + connection.bastions().size()
              + ")");
    }
    if (connection.certificate() != null && !connection.certificate().isBlank()) {
      throw new IOException("certificate authentication is not supported yet");
    }
    int timeoutSeconds =
        connection.timeoutSeconds() > 0 ? connection.timeoutSeconds() : DEFAULT_TIMEOUT_SECONDS;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    Duration backoff = FIRST_BACKOFF;
    String lastError = "none";
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      Attempt attempt = new Attempt(connection, left);
      CompletableFuture<SshjRemoteSession> future = new CompletableFuture<>();
      Thread.ofVirtual()
          .name("ssh-connect-" + connection.host())
          .start(
              () -> {
                try {
                  future.complete(attempt.call());
                } catch (Throwable e) {
                  future.completeExceptionally(e);
                }
              });
      try {
        SshjRemoteSession session = future.get(left, TimeUnit.NANOSECONDS);
        attempt.notices.forEach(notices);
        return session;
      } catch (TimeoutException e) {
        attempt.abort();
        lastError = "no SSH handshake from " + attempt.where() + " before the deadline";
        break;
      } catch (InterruptedException e) {
        attempt.abort();
        throw e;
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof HostKeyMismatchException mismatch) {
          throw mismatch;
        }
        if (cause instanceof PermanentConnectException permanent) {
          throw new IOException(permanent.getMessage(), permanent);
        }
        lastError = describe(cause);
      }
      long sleep = Math.min(backoff.toNanos(), deadline - System.nanoTime());
      if (sleep > 0) {
        TimeUnit.NANOSECONDS.sleep(sleep);
      }
      backoff =
          backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
              ? MAX_BACKOFF
              : backoff.multipliedBy(2);
    }
    throw new IOException(
        "could not connect to "
            + userOf(connection.user())
            + "@"
            + connection.host()
            + ":"
            + portOf(connection.port())
            + " within "
            + timeoutSeconds
            + " s: timeout - last error: "
            + lastError);
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    return message == null || message.isBlank()
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + message;
  }

  private static int portOf(int port) {
    return port > 0 ? port : DEFAULT_PORT;
  }

  private static String userOf(String user) {
    return user == null || user.isBlank() ? DEFAULT_USER : user;
  }

  /** A failure retrying cannot fix (unreadable key, no credentials, bad host_key format). */
  private static final class PermanentConnectException extends IOException {
    private static final long serialVersionUID = 1L;

    PermanentConnectException(String message) {
      super(message);
    }
  }

  /** One connection attempt; {@link #abort} may be called from another thread. */
  private static final class Attempt {
    private final SshConnection connection;
    private final long budgetNanos;
    private final List<String> notices = new ArrayList<>();
    private final List<SSHClient> clients = new ArrayList<>(); // guarded by itself
    private volatile boolean aborted;

    Attempt(SshConnection connection, long budgetNanos) {
      this.connection = connection;
      this.budgetNanos = budgetNanos;
    }

    String where() {
      return connection.host() + ":" + portOf(connection.port());
    }

    SshjRemoteSession call() throws IOException {
      SSHClient bastion = null;
      SSHClient target = null;
      try {
        String host = connection.host();
        int port = portOf(connection.port());
        if (!connection.bastions().isEmpty()) {
          SshConnection.Bastion hop = connection.bastions().getFirst();
          bastion = newClient();
          HostKeyCheck bastionKey = hostKeyCheck(hop.hostKey(), "bastion host_key");
          bastion.addHostKeyVerifier(bastionKey);
          String hopHost = hop.host();
          int hopPort = portOf(hop.port());
          SSHClient hopClient = bastion;
          handshake(
              bastion, bastionKey, hopHost, hopPort, () -> hopClient.connect(hopHost, hopPort));
          authenticate(bastion, userOf(hop.user()), hop.password(), hop.privateKey());
          target = newClient();
          HostKeyCheck targetKey = hostKeyCheck(connection.hostKey(), "host_key");
          target.addHostKeyVerifier(targetKey);
          SSHClient via = bastion;
          SSHClient to = target;
          handshake(
              target,
              targetKey,
              host,
              port,
              () -> {
                DirectConnection tunnel = via.newDirectConnection(host, port);
                to.connectVia(tunnel);
              });
        } else {
          target = newClient();
          HostKeyCheck targetKey = hostKeyCheck(connection.hostKey(), "host_key");
          target.addHostKeyVerifier(targetKey);
          SSHClient to = target;
          handshake(target, targetKey, host, port, () -> to.connect(host, port));
        }
        authenticate(
            target, userOf(connection.user()), connection.password(), connection.privateKey());
        return new SshjRemoteSession(target, bastion);
      } catch (IOException | RuntimeException e) {
        closeQuietly(target);
        closeQuietly(bastion);
        throw e;
      }
    }

    private interface Connect {
      void run() throws IOException;
    }

    /** Connects, turning a rejected host key into a clear, permanent error. */
    private void handshake(
        SSHClient client, HostKeyCheck check, String host, int port, Connect connect)
        throws IOException {
      try {
        connect.run();
      } catch (IOException e) {
        if (check.rejected()) {
          throw new HostKeyMismatchException(
              "host key of "
                  + host
                  + ":"
                  + port
                  + " does not match the pinned host_key: expected "
                  + check.expected()
                  + ", got "
                  + check.seen()
                  + " (the host key changed, or this is not the host you meant); nothing was run");
        }
        throw e;
      }
      if (!check.pinned()) {
        notices.add(
            "Warning: no host_key set for "
                + host
                + ":"
                + port
                + "; trusting its key "
                + check.seen()
                + " on first use");
      }
    }

    private static HostKeyCheck hostKeyCheck(String pinned, String what)
        throws PermanentConnectException {
      try {
        return new HostKeyCheck(pinned);
      } catch (IllegalArgumentException e) {
        throw new PermanentConnectException(what + ": " + e.getMessage());
      }
    }

    private SSHClient newClient() throws IOException {
      SSHClient client = new SSHClient(CONFIG);
      client.setConnectTimeout(
          (int)
              Math.max(
                  1,
                  Math.min(
                      TimeUnit.NANOSECONDS.toMillis(budgetNanos), MAX_TCP_CONNECT.toMillis())));
      // Must be set before connect: sshj starts the keep-alive thread on connect when enabled.
      client.getConnection().getKeepAlive().setKeepAliveInterval(KEEP_ALIVE_SECONDS);
      synchronized (clients) {
        if (aborted) {
          throw new IOException("connection attempt abandoned");
        }
        clients.add(client);
      }
      return client;
    }

    private static void authenticate(SSHClient client, String user, String password, String key)
        throws IOException {
      List<AuthMethod> methods = new ArrayList<>();
      if (key != null && !key.isBlank()) {
        try {
          methods.add(new AuthPublickey(client.loadKeys(key, null, null)));
        } catch (IOException | RuntimeException e) {
          throw new PermanentConnectException(
              "private_key could not be read as an OpenSSH or PEM private key ("
                  + e.getClass().getSimpleName()
                  + ")");
        }
      }
      if (password != null && !password.isEmpty()) {
        methods.add(new AuthPassword(PasswordUtils.createOneOff(password.toCharArray())));
      }
      if (methods.isEmpty()) {
        throw new PermanentConnectException("the connection has neither private_key nor password");
      }
      client.auth(user, methods);
    }

    /** Closes the clients of an attempt that ran out of time, which unblocks its thread. */
    void abort() {
      synchronized (clients) {
        aborted = true;
        clients.forEach(Attempt::closeQuietly);
      }
    }

    private static void closeQuietly(SSHClient client) {
      if (client == null) {
        return;
      }
      try {
        client.close();
      } catch (IOException | RuntimeException e) {
        // Closing a half-open client: nothing useful to report.
      }
    }
  }
}
