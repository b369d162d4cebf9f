package dev.stagecraft.planner.service.run;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's recording lane (docs/adr/0025): the work that records the run for readers — the {@link
 * RunObserver}'s database rows, the API's additions to them — runs here, off the run's critical
 * path, one task at a time and in the order submitted.
 *
 * <p>Concurrency: {@link #submit} may be called from any thread; the coordinator submits under the
 * run's monitor, so tasks run in the order of the run's event sequence. When the lane goes from
 * idle to busy it starts one virtual thread that drains it and ends when the lane is empty again,
 * so an idle run holds no thread. The lane's own monitor guards its queue and counters; no task
 * runs while it is held, so a task may take the run's monitor. A task that throws is logged and
 * counted as done: a failure to record must not stop the records after it.
 *
 * <p>The lane can be <em>held</em> (docs/adr/0057): tasks then queue, in order, and none starts
 * (the one running finishes) until {@link #release}. The coordinator holds a run's lane from {@code
 * planning} until its first action has started, so the database work of its records does not share
 * the machine with the first dispatch's way to an executor. A reader never waits for a hold: {@link
 * #awaitSubmitted} releases the lane first.
 */
final class RecordingLane {
  private static final Logger LOG = LoggerFactory.getLogger(RecordingLane.class);

  private final String name;
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private boolean draining;
  private Instant heldSince; // null when not held
  private long submitted;
  private long done;

  /**
   * @param name names the draining thread (the run id)
   */
  RecordingLane(String name) {
    this.name = name;
  }

  /** Queues {@code task} after everything submitted before; returns at once. */
  void submit(Runnable task) {
    boolean start;
    synchronized (this) {
      tasks.add(task);
      submitted++;
      start = !draining && heldSince == null;
      if (start) {
        draining = true;
      }
    }
    if (start) {
      Thread.ofVirtual().name("record-" + name).start(this::drain);
    }
  }

  private void drain() {
    while (true) {
      Runnable task;
      synchronized (this) {
        task = heldSince == null ? tasks.poll() : null;
        if (task == null) {
          draining = false;
          return;
        }
      }
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.warn("recording of {} failed: {}", name, e.toString(), e);
      }
      synchronized (this) {
        done++;
        notifyAll();
      }
    }
  }

  /**
   * Holds the lane from now on: tasks submitted or still queued wait until {@link #release}. Does
   * nothing when the lane is held already.
   *
   * @param at when (for {@link #releaseIfHeldBefore})
   */
  void hold(Instant at) {
    synchronized (this) {
      if (heldSince == null) {
        heldSince = at;
      }
    }
  }

  /** Ends a hold: the queued tasks run, in order. Does nothing when the lane is not held. */
  void release() {
    boolean start;
    synchronized (this) {
      if (heldSince == null) {
        return;
      }
      heldSince = null;
      start = !draining && !tasks.isEmpty();
      if (start) {
        draining = true;
      }
    }
    if (start) {
      Thread.ofVirtual().name("record-" + name).start(this::drain);
    }
  }

  /** {@link #release} when the lane has been held since before {@code cutoff}. */
  void releaseIfHeldBefore(Instant cutoff) {
    boolean expired;
    synchronized (this) {
      expired = heldSince != null && heldSince.isBefore(cutoff);
    }
    if (expired) {
      release();
    }
  }

  /** Whether the lane is held (for tests). */
  synchronized boolean held() {
    return heldSince != null;
  }

  /**
   * Waits until every task submitted before this call has run, at most {@code timeout}. Releases a
   * hold first: whoever waits needs the records now.
   *
   * @return true when they have, false when the time ran out first
   */
  boolean awaitSubmitted(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    release();
    synchronized (this) {
      long target = submitted;
      while (done < target) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  /**
   * How many submitted tasks have not run yet (for tests, shutdown logs, forgetting ended runs).
   */
  synchronized long pending() {
    return submitted - done;
  }
}
