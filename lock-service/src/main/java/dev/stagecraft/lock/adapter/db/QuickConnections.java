package dev.stagecraft.lock.adapter.db;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quick path's database connections (ADR 0030): a fixed number of JDBC connections outside the
 * pool, for lock commands that run on the HTTP event loop and must never wait for a connection or a
 * database that does not answer.
 *
 * <p>Each connection is opened with a server-side {@code statement_timeout} (a row lock held by
 * another transaction, a slow statement) and a client-side socket timeout (a database that stops
 * answering at all), so one command on it is bounded by about {@code statementTimeout} and at worst
 * two socket timeouts. {@link #run} never waits: it takes an idle connection without blocking or,
 * when none is idle (all busy, or being re-opened after a failure), throws {@link Unavailable} at
 * once. A connection on which a command failed with an {@link SQLException} (a timeout, a broken
 * connection, anything: its state is then unknown) is never used again: it is closed and replaced
 * by a background thread, which retries every second while the database does not accept
 * connections. The event loop therefore never opens, closes or waits for a connection.
 *
 * <p>Concurrency: thread-safe. A connection is used by one thread at a time, from {@link #run}'s
 * take to its give-back (a lock-free deque hands it over). With at least as many connections as
 * event-loop threads, each loop finds one idle unless some are being replaced. The idle connections
 * are a stack: the one used last is used next, so light traffic keeps meeting the same warm
 * PostgreSQL backend (measured on the loaded 2-core machine, one client, p50 per lock+unlock cycle:
 * 0.96–1.53 ms handing them out in turn, 0.66–0.70 ms as a stack).
 */
public final class QuickConnections implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QuickConnections.class);
  private static final long RETRY_MILLIS = 1000;

  /** The quick path cannot run this command now; the caller answers 503 and the client retries. */
  public static final class Unavailable extends RuntimeException {
    Unavailable(String message, Throwable cause) {
      super(message, cause, false, false);
    }
  }

  /** Database work on a connection owned by the caller for its duration. */
  @FunctionalInterface
  public interface Work<T> {
    T apply(Connection connection) throws SQLException;
  }

  private final String url;
  private final Properties properties;
  private final int size;

  /**
   * Idle connections, most recently used first (LIFO: one client keeps meeting the same backend).
   */
  private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

  private final AtomicInteger missing = new AtomicInteger();
  private final ScheduledExecutorService opener =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "lock-quick-connections");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean closed;

  /**
   * Opens {@code size} connections now (at startup, off the event loop); one that cannot be opened
   * is retried in the background.
   *
   * @param applicationName shown in {@code pg_stat_activity.application_name}
   * @param statementTimeout server-side bound of each statement (at least 1 ms)
   * @param socketTimeout client-side bound of each read from the database (whole seconds, at least
   *     1 s: the driver's unit)
   */
  public QuickConnections(
      String url,
      String user,
      String password,
      String applicationName,
      int size,
      Duration statementTimeout,
      Duration socketTimeout) {
    if (size < 1) {
      throw new IllegalArgumentException("quick connections: size must be at least 1, was " + size);
    }
    this.url = url;
    this.size = size;
    properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("ApplicationName", applicationName);
    long socketSeconds = Math.max(1, socketTimeout.toSeconds());
    properties.setProperty("socketTimeout", Long.toString(socketSeconds));
    properties.setProperty("connectTimeout", Long.toString(Math.max(2, socketSeconds)));
    properties.setProperty("loginTimeout", Long.toString(Math.max(2, socketSeconds)));
    properties.setProperty(
        "options", "-c statement_timeout=" + Math.max(1, statementTimeout.toMillis()));
    for (int i = 0; i < size; i++) {
      try {
        idle.add(open());
      } catch (SQLException e) {
        LOG.warn(
            "quick connection could not be opened, retrying in the background: {}", e.toString());
        missing.incrementAndGet();
      }
    }
    if (missing.get() > 0) {
      opener.schedule(this::refill, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** How many connections this holds when none is missing. */
  public int size() {
    return size;
  }

  /** How many connections are idle now (for tests and diagnostics). */
  public int idle() {
    return idle.size();
  }

  /**
   * Runs {@code work} on an idle connection, or throws {@link Unavailable} at once when none is
   * idle. A {@link SQLException} from {@code work} retires the connection (closed and replaced in
   * the background); a timeout or a broken connection is {@link Unavailable}, any other {@link
   * SQLException} is rethrown. {@code work} must leave no transaction open.
   */
  public <T> T run(Work<T> work) throws SQLException {
    Connection c = idle.pollFirst();
    if (c == null) {
      throw new Unavailable(
          "no quick-path database connection is free (being re-opened after a failure or a"
              + " timeout)",
          null);
    }
    boolean healthy = false;
    try {
      T result = work.apply(c);
      healthy = true;
      return result;
    } catch (SQLException e) {
      if (timedOutOrBroken(e)) {
        throw new Unavailable(
            "the database did not answer the quick path in time or its connection broke ("
                + e.getSQLState()
                + ")",
            e);
      }
      throw e;
    } finally {
      if (healthy && !closed) {
        idle.offerFirst(c);
      } else {
        retire(c);
      }
    }
  }

  /** A statement or lock wait cancelled by the timeout, or a connection-level failure. */
  static boolean timedOutOrBroken(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTimeoutException || t instanceof SocketTimeoutException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") // connection exception
            || state.equals("57014") // query_canceled (statement_timeout)
            || state.equals("55P03") // lock_not_available
            || state.startsWith("57P")) { // admin shutdown, crash shutdown, cannot connect now
          return true;
        }
      }
    }
    return false;
  }

  private void retire(Connection c) {
    missing.incrementAndGet();
    try {
      opener.execute(
          () -> {
            try {
              c.close();
            } catch (SQLException | RuntimeException ignored) {
              // broken anyway
            }
            refill();
          });
    } catch (RejectedExecutionException shuttingDown) {
      // closed: nothing to replace
    }
  }

  /** On the opener thread: opens connections until none is missing, retrying while it fails. */
  private void refill() {
    while (!closed && missing.get() > 0) {
      try {
        Connection c = open();
        if (closed) {
          c.close();
          return;
        }
        idle.offerLast(c);
        missing.decrementAndGet();
      } catch (SQLException e) {
        LOG.warn(
            "quick connection could not be re-opened, retrying in {} ms: {}",
            RETRY_MILLIS,
            e.toString());
        opener.schedule(this::refill, RETRY_MILLIS, TimeUnit.MILLISECONDS);
        return;
      }
    }
  }

  private Connection open() throws SQLException {
    Connection c = DriverManager.getConnection(url, properties);
    c.setAutoCommit(false);
    return c;
  }

  @Override
  public void close() {
    closed = true;
    opener.shutdownNow();
    for (Connection c = idle.poll(); c != null; c = idle.poll()) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
  }
}
