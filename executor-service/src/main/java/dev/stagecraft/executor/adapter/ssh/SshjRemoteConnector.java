package dev.stagecraft.executor.adapter.ssh;

import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import net.schmizz.keepalive.KeepAliveProvider;
import net.schmizz.keepalive.KeepAliveRunner;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.DirectConnection;
import net.schmizz.sshj.userauth.UserAuthException;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;
import net.schmizz.sshj.userauth.method.AuthMethod;
import net.schmizz.sshj.userauth.method.AuthPassword;
import net.schmizz.sshj.userauth.method.AuthPublickey;
import net.schmizz.sshj.userauth.password.PasswordUtils;

/**
 * {@link RemoteConnector} on sshj.
 *
 * <ul>
 *   <li><b>Retry.</b> A refused, reset or unanswered connection is retried with exponential backoff
 *       (250 ms doubling up to 10 s) until the connection timeout. Each attempt runs on its own
 *       virtual thread and is abandoned (its socket closed) when the deadline passes, so a server
 *       that accepts TCP but never speaks SSH cannot hold the caller longer than the timeout.
 *   <li><b>Fail fast.</b> Rejected credentials ({@link AuthenticationFailedException}: "tried
 *       publickey, password"), an unreadable key or certificate, a certificate for another key and
 *       a rejected host key are permanent: thrown at once, never retried until the timeout.
 *   <li><b>Certificates.</b> With a {@code certificate} (target or bastion) the private key is
 *       offered with that OpenSSH user certificate ({@link UserCertificate}); when the server
 *       refuses it, the error says what the certificate itself suggests (expired, not yet valid,
 *       the user not among its principals, else an untrusted CA).
 *   <li><b>Host keys</b> (target and every bastion, see {@link HostKeyCheck}): a pinned {@code
 *       hostKey} must match; else one of the {@code knownHostKeys} must; a mismatch fails at once,
 *       without retry and before authentication. When neither is set the key is accepted on first
 *       use, announced through {@code notices} and reported by {@link
 *       RemoteSession#learnedHostKeys()} so that the state service records it.
 *   <li><b>Keep-alive.</b> {@code keepalive@openssh.com} every {@value #KEEP_ALIVE_SECONDS} s on
 *       every hop; after {@value #KEEP_ALIVE_MAX_UNANSWERED} unanswered ones sshj drops the
 *       connection, so a dead peer fails the step within about 20 s instead of hanging it (the
 *       session then reports {@link RemoteSession.ConnectionLostException}).
 *   <li><b>Proxy.</b> With a {@code proxy} (HTTP CONNECT or SOCKS5, {@link ProxySocketFactory}) the
 *       first hop — the first bastion, else the target — is reached through it, as Terraform does;
 *       the later hops go through the previous hop as usual. Rejected proxy credentials are
 *       permanent, a proxy that is down or cannot reach the hop is retried.
 *   <li><b>Bastions.</b> Any number of hops, nearest first: each hop is connected, its host key
 *       checked and authenticated, and the next one (finally the target) is reached through a
 *       {@code direct-tcpip} channel of the previous one. The session closes them in reverse order;
 *       a failed attempt closes whatever it opened the same way.
 * </ul>
 *
 * <p>Thread-safe and stateless: every call builds its own clients.
 */
public final class SshjRemoteConnector implements RemoteConnector {
  static final int KEEP_ALIVE_SECONDS = 5;
  static final int KEEP_ALIVE_MAX_UNANSWERED = 3;
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

  private final int keepAliveSeconds;
  private final int keepAliveMaxUnanswered;

  /**
   * Keep-alive every {@value #KEEP_ALIVE_SECONDS} s, {@value #KEEP_ALIVE_MAX_UNANSWERED} missed.
   */
  public SshjRemoteConnector() {
    this(KEEP_ALIVE_SECONDS, KEEP_ALIVE_MAX_UNANSWERED);
  }

  /**
   * @param keepAliveSeconds seconds between keep-alive requests (at least 1)
   * @param keepAliveMaxUnanswered unanswered keep-alives after which a connection counts as lost
   */
  public SshjRemoteConnector(int keepAliveSeconds, int keepAliveMaxUnanswered) {
    if (keepAliveSeconds < 1 || keepAliveMaxUnanswered < 1) {
      throw new IllegalArgumentException("keep-alive interval and count must be at least 1");
    }
    this.keepAliveSeconds = keepAliveSeconds;
    this.keepAliveMaxUnanswered = keepAliveMaxUnanswered;
  }

  @Override
  public RemoteSession connect(SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException {
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
      Attempt attempt = new Attempt(connection, left, keepAliveSeconds, keepAliveMaxUnanswered);
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
        session.learned(attempt.learned);
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
        if (cause instanceof PermanentConnectionException permanent) {
          // host key mismatch, rejected credentials, unreadable key: retrying cannot help
          throw permanent;
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
            + (connection.proxy() == null ? "" : " through the proxy " + connection.proxy().where())
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

  /** One connection attempt; {@link #abort} may be called from another thread. */
  private static final class Attempt {
    private final SshConnection connection;
    private final long budgetNanos;
    private final int keepAliveSeconds;
    private final int keepAliveMaxUnanswered;
    private final List<String> notices = new ArrayList<>();
    private final List<LearnedHostKey> learned = new ArrayList<>();
    private final List<SSHClient> clients = new ArrayList<>(); // guarded by itself
    private volatile boolean aborted;

    Attempt(
        SshConnection connection,
        long budgetNanos,
        int keepAliveSeconds,
        int keepAliveMaxUnanswered) {
      this.connection = connection;
      this.budgetNanos = budgetNanos;
      this.keepAliveSeconds = keepAliveSeconds;
      this.keepAliveMaxUnanswered = keepAliveMaxUnanswered;
    }

    String where() {
      return connection.host() + ":" + portOf(connection.port());
    }

    /**
     * Connects hop by hop (nearest bastion first), then the target through the last hop. On failure
     * everything opened so far is closed, last opened first.
     */
    SshjRemoteSession call() throws IOException {
      List<SSHClient> hops = new ArrayList<>();
      SSHClient target = null;
      try {
        List<SshConnection.Bastion> bastions = connection.bastions();
        SSHClient previous = null;
        for (int i = 0; i < bastions.size(); i++) {
          SshConnection.Bastion hop = bastions.get(i);
          String what = bastions.size() == 1 ? "bastion" : "bastion " + (i + 1);
          String hopHost = hop.host();
          int hopPort = portOf(hop.port());
          SSHClient client = newClient(i == 0);
          hops.add(client);
          HostKeyCheck hopKey = hostKeyCheck(() -> HostKeyCheck.forBastion(hop, hopPort), what);
          client.addHostKeyVerifier(hopKey);
          connectThrough(previous, client, hopKey, hopHost, hopPort);
          authenticate(
              client,
              userOf(hop.user()),
              hop.password(),
              hop.privateKey(),
              hop.certificate(),
              hopHost,
              hopPort,
              what);
          previous = client;
        }
        String host = connection.host();
        int port = portOf(connection.port());
        target = newClient(bastions.isEmpty());
        HostKeyCheck targetKey =
            hostKeyCheck(() -> HostKeyCheck.forTarget(connection, port), "connection");
        target.addHostKeyVerifier(targetKey);
        connectThrough(previous, target, targetKey, host, port);
        authenticate(
            target,
            userOf(connection.user()),
            connection.password(),
            connection.privateKey(),
            connection.certificate(),
            host,
            port,
            null);
        return new SshjRemoteSession(target, hops, userOf(connection.user()) + "@" + where());
      } catch (IOException | RuntimeException e) {
        closeQuietly(target);
        for (SSHClient hop : hops.reversed()) {
          closeQuietly(hop);
        }
        throw e;
      }
    }

    /** Connects {@code client} directly, or through a direct-tcpip channel of {@code via}. */
    private void connectThrough(
        SSHClient via, SSHClient client, HostKeyCheck check, String host, int port)
        throws IOException {
      if (via == null) {
        handshake(client, check, host, port, () -> client.connect(host, port));
      } else {
        handshake(
            client,
            check,
            host,
            port,
            () -> {
              DirectConnection tunnel = via.newDirectConnection(host, port);
              client.connectVia(tunnel);
            });
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
          throw new HostKeyMismatchException(check.mismatchMessage());
        }
        throw e;
      }
      LearnedHostKey firstUse = check.learned();
      if (firstUse != null) {
        learned.add(firstUse);
        notices.add(
            "Warning: no host_key set and no key known for "
                + host
                + ":"
                + port
                + "; trusting its key "
                + check.seen()
                + " on first use (recorded for this workspace; later runs require it)");
      }
    }

    private static HostKeyCheck hostKeyCheck(Supplier<HostKeyCheck> check, String where)
        throws PermanentConnectionException {
      try {
        return check.get();
      } catch (IllegalArgumentException e) {
        throw new PermanentConnectionException(where + ": " + e.getMessage());
      }
    }

    /**
     * A client for the next hop; the first hop ({@code first}) goes through the connection's proxy
     * when it has one, which then resolves the hop's name (the executor never looks it up).
     */
    private SSHClient newClient(boolean first) throws IOException {
      SshConnection.Proxy proxy = first ? connection.proxy() : null;
      SSHClient client;
      if (proxy == null) {
        client = new SSHClient(CONFIG);
        client.setSocketFactory(NoDelaySocketFactory.INSTANCE);
      } else {
        client =
            new SSHClient(CONFIG) {
              @Override
              protected InetSocketAddress makeInetSocketAddress(String hostname, int port) {
                return InetSocketAddress.createUnresolved(hostname, port);
              }
            };
        client.setSocketFactory(new ProxySocketFactory(proxy));
      }
      client.setConnectTimeout(
          (int)
              Math.max(
                  1,
                  Math.min(
                      TimeUnit.NANOSECONDS.toMillis(budgetNanos), MAX_TCP_CONNECT.toMillis())));
      // Must be set before connect: sshj starts the keep-alive thread on connect when enabled.
      if (client.getConnection().getKeepAlive() instanceof KeepAliveRunner runner) {
        runner.setMaxAliveCount(keepAliveMaxUnanswered);
      }
      client.getConnection().getKeepAlive().setKeepAliveInterval(keepAliveSeconds);
      synchronized (clients) {
        if (aborted) {
          throw new IOException("connection attempt abandoned");
        }
        clients.add(client);
      }
      return client;
    }

    /**
     * Authenticates with the key (with its certificate, when one is given) and/or password. A
     * rejection while the transport is still up is permanent ({@link
     * AuthenticationFailedException}); a transport that died meanwhile is a plain, transient {@link
     * IOException}. An unreadable certificate, or one issued for another key, is permanent too and
     * fails before anything is offered to the server.
     *
     * @param certificate an OpenSSH user certificate for {@code key}, or null
     * @param hop "bastion", "bastion 2", ... or null for the target (for messages)
     */
    private static void authenticate(
        SSHClient client,
        String user,
        String password,
        String key,
        String certificate,
        String host,
        int port,
        String hop)
        throws IOException {
      String prefix = hop == null ? "" : hop + ": ";
      List<AuthMethod> methods = new ArrayList<>();
      List<String> tried = new ArrayList<>();
      UserCertificate userCertificate = null;
      if (certificate != null && !certificate.isBlank()) {
        if (key == null || key.isBlank()) {
          throw new PermanentConnectionException(
              prefix
                  + "a certificate needs the private key it was issued for: set private_key"
                  + (hop == null ? "" : " of the " + hop)
                  + " too");
        }
        userCertificate = UserCertificate.parse(certificate, prefix);
      }
      if (key != null && !key.isBlank()) {
        KeyProvider keys;
        try {
          keys = client.loadKeys(key, null, null);
          keys.getPrivate(); // parse now: a bad key is a clear error, not a failed login
        } catch (IOException | RuntimeException e) {
          throw new PermanentConnectionException(
              prefix
                  + "private_key could not be read as an OpenSSH or PEM private key ("
                  + e.getClass().getSimpleName()
                  + ")");
        }
        if (userCertificate != null) {
          keys = userCertificate.pairedWith(keys, prefix);
          tried.add("publickey with certificate");
        } else {
          tried.add("publickey");
        }
        methods.add(new AuthPublickey(keys));
      }
      if (password != null && !password.isEmpty()) {
        methods.add(new AuthPassword(PasswordUtils.createOneOff(password.toCharArray())));
        tried.add("password");
      }
      if (methods.isEmpty()) {
        throw new PermanentConnectionException(
            prefix + "the connection has neither private_key nor password");
      }
      try {
        client.auth(user, methods);
      } catch (UserAuthException e) {
        if (!client.getTransport().isRunning()) {
          throw e; // the connection broke during authentication: transient
        }
        throw new AuthenticationFailedException(
            prefix
                + "authentication failed for "
                + user
                + "@"
                + host
                + ":"
                + port
                + " (tried "
                + String.join(", ", tried)
                + ") — check private_key/password/user"
                + (hop == null ? "" : " of the " + hop)
                + (userCertificate == null
                    ? ""
                    : "; " + userCertificate.whyRefused(user, Instant.now()))
                + "; not retried: a rejected credential stays rejected");
      }
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
