package dev.stagecraft.planner.service.run;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ordered events of one run, for followers. Appends and reads may come from any thread; {@link
 * #after} blocks (bounded) until there is something newer, so clients long-poll instead of
 * spinning.
 */
public final class RunJournal {
  private final List<RunEvent> events = new ArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final Clock clock;
  private boolean closed;

  public RunJournal(Clock clock) {
    this.clock = clock;
  }

  public void status(RunStatus status, String message) {
    append(seq -> RunEvent.status(seq, clock.instant(), status, message), status.isTerminal());
  }

  public void log(String address, String stream, String line) {
    append(
        seq -> new RunEvent(seq, clock.instant(), "log", null, address, stream, line, null), false);
  }

  public void action(String address, String message) {
    append(
        seq -> new RunEvent(seq, clock.instant(), "action", null, address, null, null, message),
        false);
  }

  private void append(java.util.function.LongFunction<RunEvent> event, boolean close) {
    lock.lock();
    try {
      events.add(event.apply(events.size() + 1L));
      closed |= close;
      appended.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Events with a sequence greater than {@code after}; waits up to {@code wait} when there are none
   * yet and the run is still going.
   */
  public List<RunEvent> after(long after, Duration wait) throws InterruptedException {
    lock.lock();
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      while (events.size() <= after && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        appended.await(left, TimeUnit.NANOSECONDS);
      }
      int from = (int) Math.min(Math.max(after, 0), events.size());
      return List.copyOf(events.subList(from, events.size()));
    } finally {
      lock.unlock();
    }
  }
}
