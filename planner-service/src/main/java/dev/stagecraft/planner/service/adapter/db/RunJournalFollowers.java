package dev.stagecraft.planner.service.adapter.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the readers that follow a run's recorded journal on this planner instance when another
 * instance records entries of that run (docs/adr/0037): {@link RunJournalStore} issues {@code
 * NOTIFY planner_run_journal, '<run id>'} in the transaction of every batch it writes, and this
 * class holds one connection per instance that {@code LISTEN}s on that channel and wakes the
 * followers of the run named.
 *
 * <p>A follower {@linkplain #watch watches} a run, takes the watch's {@link Watch#version()}
 * <em>before</em> it reads the table, and when the read found nothing new {@linkplain Watch#await
 * waits} with that version: the wait returns at once when a notification for the run (or a
 * reconnect) arrived since, else when one arrives, when the follower's own bound passes, or when
 * the thread is unparked (a client's cancel). It never sleeps a fixed time: a notification wakes it
 * within the listener's round trip. A notification that is missed cannot leave a follower stuck:
 * the wait is also bounded by the {@linkplain #reread() safety re-read interval}, and after the
 * listening connection is lost and opened again every follower is woken to read again (entries
 * committed while nobody listened send no notification here).
 *
 * <p>Concurrency: thread-safe. One listener thread per instance (started by {@link #start}, ended
 * by {@link #close}) reads the notifications; any number of follower threads wait, each on its own
 * thread (a park the listener or a cancel unparks). The listening connection is opened by the
 * {@link Connector} (not taken from the pool: a pooled connection that {@code LISTEN}s would be
 * handed to others still listening).
 */
public final class RunJournalFollowers implements AutoCloseable {
  /** The channel {@link RunJournalStore} notifies with a run id as the payload. */
  public static final String CHANNEL = "planner_run_journal";

  private static final Logger log = LoggerFactory.getLogger(RunJournalFollowers.class);

  /** How long the listener blocks for notifications before checking whether it is closing. */
  private static final int RECEIVE_MILLIS = 1_000;

  /** Between two attempts to open the listening connection. */
  private static final Duration RECONNECT = Duration.ofSeconds(1);

  /** Opens the listening connection (a plain connection, autocommit). */
  @FunctionalInterface
  public interface Connector {
    Connection open() throws SQLException;
  }

  /** The followers of one run: what they wait on. */
  private static final class Signal {
    final AtomicLong version = new AtomicLong();
    final Set<Thread> waiters = ConcurrentHashMap.newKeySet();
    int watches; // guarded by the signals map's compute of this run

    void wake() {
      version.incrementAndGet();
      for (Thread t : waiters) {
        LockSupport.unpark(t);
      }
    }
  }

  private final Connector connector;
  private final Duration reread;
  private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

  /** Bumped whenever every follower must read again (the listener (re)connected). */
  private final AtomicLong epoch = new AtomicLong();

  private final Thread listener;
  private volatile boolean closed;
  private volatile boolean listening;

  /**
   * @param connector opens the listening connection, again after it was lost
   * @param reread the safety re-read: a follower reads the table at least this often even when no
   *     notification arrives (positive)
   */
  public RunJournalFollowers(Connector connector, Duration reread) {
    if (reread == null || reread.isNegative() || reread.isZero()) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_RUN_LOG_REREAD must be a positive duration (e.g. 10s), got "
              + reread);
    }
    this.connector = connector;
    this.reread = reread;
    this.listener =
        Thread.ofPlatform().daemon().name("run-journal-listener").unstarted(this::listen);
  }

  /** Starts listening; call once. */
  public RunJournalFollowers start() {
    listener.start();
    return this;
  }

  /** The safety re-read interval: the longest a follower waits without reading again. */
  public Duration reread() {
    return reread;
  }

  /** Whether the listening connection is open and listening now. */
  public boolean listening() {
    return listening;
  }

  /**
   * Starts following {@code runId}; close the watch when the follower ends. A follower reads, and
   * waits with the version taken before its read, in a loop.
   */
  public Watch watch(String runId) {
    Signal signal =
        signals.compute(
            runId,
            (k, s) -> {
              Signal out = s == null ? new Signal() : s;
              out.watches++;
              return out;
            });
    return new Watch(runId, signal);
  }

  /** One follower's view of a run's notifications; used by that follower's thread. */
  public final class Watch implements AutoCloseable {
    private final String runId;
    private final Signal signal;
    private boolean closed;

    private Watch(String runId, Signal signal) {
      this.runId = runId;
      this.signal = signal;
    }

    /**
     * Changes whenever entries of the run were notified or every follower was told to read again;
     * take it before reading the table.
     */
    public long version() {
      return signal.version.get() + epoch.get();
    }

    /**
     * Waits until the {@link #version()} differs from {@code seen}, at most {@code max} and at most
     * the safety re-read interval (while the instance does not listen, at most a second: followers
     * then poll); returns early when the thread is unparked (a cancel) or interrupted. Returns at
     * once when the version already differs. The caller reads again whatever woke it.
     *
     * @throws InterruptedException when the thread is (or gets) interrupted
     */
    public void await(long seen, Duration max) throws InterruptedException {
      // while nobody listens (connection lost, not yet open) followers poll: no wake-up would come
      Duration bound = listening ? reread : min(reread, RECONNECT);
      long nanos = Math.min(max.toNanos(), bound.toNanos());
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while following run " + runId);
      }
      if (nanos <= 0 || version() != seen) {
        return;
      }
      Thread self = Thread.currentThread();
      signal.waiters.add(self);
      try {
        if (version() == seen && !self.isInterrupted()) {
          LockSupport.parkNanos(this, nanos);
        }
      } finally {
        signal.waiters.remove(self);
      }
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while following run " + runId);
      }
    }

    /** Stops following; the run's signal is dropped with its last watch. */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      signals.computeIfPresent(
          runId,
          (k, s) -> {
            s.watches--;
            return s.watches == 0 ? null : s;
          });
    }
  }

  /** Wakes the followers of {@code runId} on this instance (what a notification does). */
  void notified(String runId) {
    Signal signal = signals.get(runId);
    if (signal != null) {
      signal.wake();
    }
  }

  /** Makes every follower read again. */
  private void wakeAll() {
    epoch.incrementAndGet();
    for (Signal s : signals.values()) {
      for (Thread t : s.waiters) {
        LockSupport.unpark(t);
      }
    }
  }

  private void listen() {
    boolean failing = false;
    while (!closed) {
      try (Connection c = connector.open()) {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        listening = true;
        if (failing) {
          log.info("listening for run journal entries again");
          failing = false;
        }
        // entries committed while this instance did not listen sent it nothing: read again
        wakeAll();
        while (!closed) {
          PGNotification[] received = pg.getNotifications(RECEIVE_MILLIS);
          if (received != null) {
            for (PGNotification n : received) {
              notified(n.getParameter());
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        listening = false;
        if (closed) {
          return;
        }
        if (!failing) {
          log.warn(
              "no connection listens for run journal entries ({}); followers on this instance"
                  + " read every second until one does",
              e.getMessage());
          failing = true;
        }
        wakeAll();
        // a pause before the next attempt (this background thread only); close() unparks it
        LockSupport.parkNanos(this, RECONNECT.toNanos());
      } finally {
        listening = false;
      }
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Stops listening and closes the connection; waiting followers are woken. */
  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(listener);
    try {
      listener.join(RECEIVE_MILLIS * 5L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    wakeAll();
  }
}
