package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares SSH connections between the actions of one run that run on this executor, so that a run's
 * steps to a host ride on one connection instead of reconnecting per action: a decorator of the
 * {@link RemoteConnector} port.
 *
 * <p><b>Scope.</b> Each action opens a {@link RunConnections} lease with {@link #open} (tenant and
 * run id) and closes it when it ends; the lease is the {@link RemoteConnector} its steps use. A
 * connection is shared only by leases of the same tenant and run <em>and</em> the same connection
 * identity: host, port, user, pinned host key, known host keys, a salted digest of the credentials
 * (password, private key, certificate; with a proxy, the proxy and its credentials too) and the
 * same for every bastion hop. Two blocks that differ in any of these never share a connection, so a
 * step that pins a host key never rides on a connection opened without that pin, and runs and
 * tenants never share at all. The connection {@code timeout} is not part of the identity: it only
 * bounds connecting.
 *
 * <p><b>Borrowing.</b> {@link RunConnections#connect} borrows an open connection of that identity
 * that has room, or connects a new one through the delegate; the returned {@link RemoteSession} is
 * the borrower's until it is closed, which returns the connection. Every command opens its own
 * channel on the shared connection; uploads share the connection's one SFTP channel. A borrower may
 * hold {@value #CHANNELS_PER_BORROWER} session channels at once (its command and, on timeout, the
 * one that kills it), and the connection's SFTP channel takes one more, so a connection takes at
 * most {@code (maxSessions - 1) / 2} borrowers (4 for OpenSSH's default {@code MaxSessions 10});
 * when all connections of an identity are full, another one is opened. Notices of the first connect
 * (e.g. the host key trusted on first use) are repeated to every borrower, so each action's log
 * says what its connection trusted.
 *
 * <p><b>Broken connections.</b> A connection whose session reports {@link RemoteSession#isOpen}
 * false, when borrowed or after an operation on it failed, is discarded and closed: it is never
 * handed out again, and the next borrower gets a new connection. (A command that was running when
 * its connection broke still fails; nothing is retried here.)
 *
 * <p><b>Closing.</b> A connection nobody borrows closes after {@code idleTimeout}. When the last
 * open lease of a run ends, the run's connections are kept for {@code runLinger} more (the next
 * action of a chain is dispatched only after the previous one finished, typically tens of
 * milliseconds later) and then all closed, unless an action of the run opened a lease in between.
 * {@code runLinger} zero closes them at once. {@link #close} closes everything.
 *
 * <p><b>Concurrency.</b> Thread-safe: leases are opened, borrowed from and closed by many (virtual)
 * threads at once. The pool's bookkeeping is guarded by the pool's monitor; connecting, operations
 * on a connection and closing one happen outside it. Two borrowers that find no usable connection
 * at the same moment each connect one (both are reused afterwards). Timers run on one daemon
 * thread.
 */
public final class RunConnectionPool implements AutoCloseable {
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RUN_LINGER = Duration.ofSeconds(5);
  public static final int DEFAULT_MAX_SESSIONS = 10;
  static final int CHANNELS_PER_BORROWER = 2;

  /**
   * Why a connect during shutdown fails. A {@link RemoteConnector.PermanentConnectionException}:
   * this executor will not open connections again, so a step with {@code retries} must fail at once
   * (its action is then reported as failed) rather than pause and try again on a pool that is gone.
   */
  static final String SHUTTING_DOWN = "the executor is shutting down; no new SSH connections";

  private static final Logger LOG = LoggerFactory.getLogger(RunConnectionPool.class);

  private final RemoteConnector delegate;
  private final Duration idleTimeout;
  private final Duration runLinger;
  private final int borrowersPerConnection;
  private final byte[] salt = new byte[16];
  private final ScheduledExecutorService timer;
  private final Map<RunKey, Run> runs = new HashMap<>(); // guarded by this
  private final AtomicLong connected = new AtomicLong();
  private boolean closed; // guarded by this

  /**
   * @param delegate opens the connections (sshj in the executor)
   * @param idleTimeout how long a connection nobody borrows stays open
   * @param runLinger how long a run's connections stay open after its last lease closed
   * @param maxSessions session channels the servers allow per connection (OpenSSH {@code
   *     MaxSessions}, default {@value #DEFAULT_MAX_SESSIONS}); at least 3
   * @throws IllegalArgumentException for a negative duration or {@code maxSessions < 3}
   */
  public RunConnectionPool(
      RemoteConnector delegate, Duration idleTimeout, Duration runLinger, int maxSessions) {
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException(
          "stagecraft.executor.ssh-idle-timeout must be positive, got " + idleTimeout);
    }
    if (runLinger.isNegative()) {
      throw new IllegalArgumentException(
          "stagecraft.executor.ssh-run-linger must not be negative, got " + runLinger);
    }
    if (maxSessions < 1 + CHANNELS_PER_BORROWER) {
      throw new IllegalArgumentException(
          "stagecraft.executor.ssh-max-sessions must be at least "
              + (1 + CHANNELS_PER_BORROWER)
              + " (one SFTP channel and "
              + CHANNELS_PER_BORROWER
              + " per borrower), got "
              + maxSessions);
    }
    this.delegate = delegate;
    this.idleTimeout = idleTimeout;
    this.runLinger = runLinger;
    this.borrowersPerConnection = (maxSessions - 1) / CHANNELS_PER_BORROWER;
    new SecureRandom().nextBytes(salt);
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1, Thread.ofPlatform().daemon().name("ssh-pool-timer").factory());
    executor.setRemoveOnCancelPolicy(true);
    this.timer = executor;
  }

  /**
   * Opens the lease of one action of run {@code runId} of {@code tenant}; close it when the action
   * ends. A lease without a run id shares nothing: every connect goes to the delegate.
   */
  public RunConnections open(String tenant, String runId) {
    if (runId == null || runId.isBlank()) {
      return new RunConnections(this, null);
    }
    RunKey key = new RunKey(tenant == null ? "" : tenant, runId);
    synchronized (this) {
      Run run = runs.computeIfAbsent(key, Run::new);
      run.leases++;
      if (run.linger != null) {
        run.linger.cancel(false);
        run.linger = null;
      }
      return new RunConnections(this, run);
    }
  }

  /**
   * Pooled connections, over all runs, whose session still says it is open (for tests and metrics).
   */
  public synchronized int openConnections() {
    int open = 0;
    for (Run run : runs.values()) {
      for (List<Connection> list : run.connections.values()) {
        for (Connection connection : list) {
          open += connection.session.isOpen() ? 1 : 0;
        }
      }
    }
    return open;
  }

  /** Connections opened through the delegate since the pool was created (for tests, metrics). */
  public long connectionsOpened() {
    return connected.get();
  }

  /** Borrowers one connection takes at most: {@code (maxSessions - 1) / 2}. */
  public int borrowersPerConnection() {
    return borrowersPerConnection;
  }

  /** Closes every connection and stops the timer; later borrows fail. Never throws. */
  @Override
  public void close() {
    List<Connection> toClose = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Run run : runs.values()) {
        run.connections.values().forEach(toClose::addAll);
        run.connections.clear();
      }
      runs.clear();
      toClose.forEach(connection -> connection.discarded = true);
    }
    timer.shutdownNow();
    toClose.forEach(Connection::discard);
  }

  RemoteSession connectUnpooled(SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException {
    return delegate.connect(connection, notices);
  }

  RemoteSession borrow(Run run, SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException {
    ConnectionIdentity identity = identityOf(connection);
    List<Connection> broken = new ArrayList<>();
    Connection chosen = null;
    synchronized (this) {
      requireOpen(run);
      List<Connection> list = run.connections.computeIfAbsent(identity, i -> new ArrayList<>());
      for (Iterator<Connection> it = list.iterator(); it.hasNext(); ) {
        Connection candidate = it.next();
        if (!candidate.session.isOpen()) {
          it.remove();
          candidate.discarded = true;
          broken.add(candidate);
        } else if (chosen == null && candidate.borrowers < borrowersPerConnection) {
          chosen = candidate;
        }
      }
      if (chosen != null) {
        chosen.borrow();
      }
    }
    broken.forEach(Connection::discard);
    if (chosen != null) {
      chosen.notices.forEach(notices);
      return new PooledSession(chosen);
    }
    List<String> seen = new ArrayList<>();
    RemoteSession session = delegate.connect(connection, seen::add);
    connected.incrementAndGet();
    Connection fresh = new Connection(run, identity, session, List.copyOf(seen));
    synchronized (this) {
      if (closed || runs.get(run.key) != run) {
        fresh.discarded = true;
      } else {
        fresh.borrow();
        run.connections.computeIfAbsent(identity, i -> new ArrayList<>()).add(fresh);
      }
    }
    if (fresh.discarded) {
      fresh.discard();
      throw new RemoteConnector.PermanentConnectionException(SHUTTING_DOWN);
    }
    fresh.notices.forEach(notices);
    return new PooledSession(fresh);
  }

  private void requireOpen(Run run) throws IOException {
    if (closed || runs.get(run.key) != run) {
      throw new RemoteConnector.PermanentConnectionException(SHUTTING_DOWN);
    }
  }

  /** One lease of {@code run} ended; the last one starts the run's linger. */
  void leaseClosed(Run run) {
    List<Connection> toClose = new ArrayList<>();
    synchronized (this) {
      run.leases--;
      if (run.leases > 0 || runs.get(run.key) != run) {
        return;
      }
      if (runLinger.isZero() || closed) {
        endRun(run, toClose);
      } else {
        run.linger =
            timer.schedule(() -> lingerExpired(run), runLinger.toNanos(), TimeUnit.NANOSECONDS);
      }
    }
    toClose.forEach(Connection::discard);
  }

  private void lingerExpired(Run run) {
    List<Connection> toClose = new ArrayList<>();
    synchronized (this) {
      if (run.leases > 0 || runs.get(run.key) != run) {
        return;
      }
      endRun(run, toClose);
    }
    toClose.forEach(Connection::discard);
  }

  // guarded by this
  private void endRun(Run run, List<Connection> toClose) {
    runs.remove(run.key);
    for (List<Connection> list : run.connections.values()) {
      for (Connection connection : list) {
        connection.discarded = true;
        toClose.add(connection);
      }
    }
    run.connections.clear();
  }

  /** A borrower gave {@code connection} back; {@code failed}: an operation on it threw. */
  void giveBack(Connection connection) {
    boolean discard = false;
    synchronized (this) {
      connection.borrowers--;
      if (connection.discarded) {
        discard = connection.borrowers == 0;
      } else if (!connection.session.isOpen()) {
        forget(connection);
        discard = true;
      } else if (connection.borrowers == 0 && !closed) {
        long generation = ++connection.idleGeneration;
        connection.idleClose =
            timer.schedule(
                () -> idleExpired(connection, generation),
                idleTimeout.toNanos(),
                TimeUnit.NANOSECONDS);
      }
    }
    if (discard) {
      connection.discard();
    }
  }

  /** An operation on {@code connection} failed: if it is no longer open, nobody gets it again. */
  void checkAfterFailure(Connection connection) {
    if (connection.session.isOpen()) {
      return;
    }
    synchronized (this) {
      forget(connection);
    }
  }

  private void idleExpired(Connection connection, long generation) {
    synchronized (this) {
      if (connection.discarded
          || connection.borrowers > 0
          || connection.idleGeneration != generation) {
        return;
      }
      forget(connection);
    }
    LOG.debug("closing an SSH connection of run {} idle for {}", connection.run.key, idleTimeout);
    connection.discard();
  }

  // guarded by this
  private void forget(Connection connection) {
    connection.discarded = true;
    List<Connection> list = connection.run.connections.get(connection.identity);
    if (list != null) {
      list.remove(connection);
      if (list.isEmpty()) {
        connection.run.connections.remove(connection.identity);
      }
    }
  }

  /** The identity two connection blocks must share to share a connection; holds no secret. */
  ConnectionIdentity identityOf(SshConnection c) {
    List<ConnectionIdentity> hops = new ArrayList<>();
    for (SshConnection.Bastion hop : c.bastions()) {
      hops.add(
          new ConnectionIdentity(
              hop.host(),
              hop.port(),
              hop.user(),
              hop.hostKey(),
              hop.knownHostKeys(),
              digest(hop.password(), hop.privateKey(), hop.certificate()),
              List.of()));
    }
    return new ConnectionIdentity(
        c.host(),
        c.port(),
        c.user(),
        c.hostKey(),
        c.knownHostKeys(),
        c.proxy() == null
            ? digest(c.password(), c.privateKey(), c.certificate())
            : digest(
                c.password(),
                c.privateKey(),
                c.certificate(),
                c.proxy().where(),
                c.proxy().user(),
                c.proxy().password()),
        List.copyOf(hops));
  }

  /** SHA-256 over the salt and the length-prefixed values: equal iff the credentials are equal. */
  private String digest(String... values) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(salt);
      for (String value : values) {
        if (value == null) {
          sha.update(ByteBuffer.allocate(4).putInt(-1).array());
        } else {
          byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
          sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
          sha.update(bytes);
        }
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Tenant and run: the outer scope of sharing. */
  record RunKey(String tenant, String runId) {}

  /**
   * Where and as whom a connection goes; {@code credentials} is a salted digest, never the secret.
   */
  record ConnectionIdentity(
      String host,
      int port,
      String user,
      String hostKey,
      List<String> knownHostKeys,
      String credentials,
      List<ConnectionIdentity> bastions) {}

  /** The connections of one run; guarded by the pool's monitor. */
  static final class Run {
    final RunKey key;
    final Map<ConnectionIdentity, List<Connection>> connections = new HashMap<>();
    int leases;
    ScheduledFuture<?> linger;

    Run(RunKey key) {
      this.key = key;
    }
  }

  /** One pooled connection; fields other than the finals are guarded by the pool's monitor. */
  static final class Connection {
    final Run run;
    final ConnectionIdentity identity;
    final RemoteSession session;
    final List<String> notices;
    int borrowers;
    boolean discarded;
    long idleGeneration;
    ScheduledFuture<?> idleClose;

    Connection(Run run, ConnectionIdentity identity, RemoteSession session, List<String> notices) {
      this.run = run;
      this.identity = identity;
      this.session = session;
      this.notices = notices;
    }

    // guarded by the pool's monitor
    void borrow() {
      borrowers++;
      idleGeneration++;
      if (idleClose != null) {
        idleClose.cancel(false);
        idleClose = null;
      }
    }

    /** Closes the underlying session; called outside the pool's monitor. */
    void discard() {
      try {
        session.close();
      } catch (RuntimeException e) {
        LOG.debug("closing a pooled SSH connection failed", e);
      }
    }
  }

  /**
   * A borrower's view of a pooled connection: operations go to the shared session; {@link #close}
   * gives the connection back (once) instead of closing it.
   */
  private final class PooledSession implements RemoteSession {
    private final Connection connection;
    private boolean returned; // guarded by this

    PooledSession(Connection connection) {
      this.connection = connection;
    }

    @Override
    public int exec(String command, LineSink output, Duration timeout)
        throws IOException, InterruptedException, TimeoutException {
      try {
        return connection.session.exec(command, output, timeout);
      } catch (IOException e) {
        checkAfterFailure(connection);
        throw e;
      }
    }

    @Override
    public void upload(String path, byte[] content, int mode) throws IOException {
      try {
        connection.session.upload(path, content, mode);
      } catch (IOException e) {
        checkAfterFailure(connection);
        throw e;
      }
    }

    @Override
    public void remove(String path) throws IOException {
      try {
        connection.session.remove(path);
      } catch (IOException e) {
        checkAfterFailure(connection);
        throw e;
      }
    }

    @Override
    public List<LearnedHostKey> learnedHostKeys() {
      return connection.session.learnedHostKeys();
    }

    @Override
    public boolean isOpen() {
      return connection.session.isOpen();
    }

    @Override
    public void close() {
      synchronized (this) {
        if (returned) {
          return;
        }
        returned = true;
      }
      giveBack(connection);
    }
  }
}
