package dev.stagecraft.planner.service.run.journal;

import java.time.Duration;
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
 * counted as done: a failure to record must not stop the records after it. A task starts as soon as
 * the ones before it are done: nothing holds the lane (docs/adr/0073).
 */
public final class RecordingLane {
  private static final Logger LOG = LoggerFactory.getLogger(RecordingLane.class);

  private final String name;
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private boolean draining;
  private long submitted;
  private long done;

  /**
   * @param name names the draining thread (the run id)
   */
  public RecordingLane(String name) {
    this.name = name;
  }

  /** Queues {@code task} after everything submitted before; returns at once. */
  public void submit(Runnable task) {
    boolean start;
    synchronized (this) {
      tasks.add(task);
      submitted++;
      start = !draining;
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
        task = tasks.poll();
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
   * Waits until every task submitted before this call has run, at most {@code timeout}.
   *
   * @return true when they have, false when the time ran out first
   */
  public boolean awaitSubmitted(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
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
  public synchronized long pending() {
    return submitted - done;
  }
}
