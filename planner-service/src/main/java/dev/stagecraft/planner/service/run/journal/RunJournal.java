package dev.stagecraft.planner.service.run.journal;

import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * The ordered events of one run, for followers. Appends and reads may come from any thread; {@link
 * #after} blocks (bounded) until there is something newer, so clients long-poll instead of
 * spinning.
 *
 * <p>Sequences: the entries of a journal are numbered {@code base + 1, base + 2, …} with no gap. A
 * new run's base is 0; a run resumed after a restart (docs/adr/0029) starts {@link
 * RunCoordinator#RESUME_SEQUENCE_GAP} above the last entry its previous life recorded, so no
 * sequence a client may have seen is reused (docs/adr/0032).
 *
 * <p>Recording (docs/adr/0032): once {@link #recordTo recorded}, every entry is handed to a {@link
 * Recorder} on the run's {@link RecordingLane}, in sequence order and in batches: an append queues
 * one flush task when none is queued, and that task takes every entry appended since the last
 * successful flush. A flush that fails is retried by the next one (the recorder must be idempotent
 * per sequence). The run's path never waits for a flush.
 *
 * <p>Bound: a run keeps at most {@code maxLogLines} provisioner output lines ({@link
 * #DEFAULT_MAX_LOG_LINES}; a recorded journal takes its {@link Recorder#maxLogLines() recorder's}
 * bound, {@code STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES}, when it is handed to it); at the limit one
 * {@code action} entry says so and later lines are dropped (not numbered), so memory, the table and
 * every reader see the same entries. Transitions and action entries are always kept.
 */
public final class RunJournal {
  /**
   * Output lines kept per run (memory and {@code planner.run_journal} alike) unless the recorder
   * says otherwise.
   */
  public static final int DEFAULT_MAX_LOG_LINES = 100_000;

  /** Writes journal entries durably; called on the run's recording lane, one call at a time. */
  public interface Recorder {
    /**
     * Records {@code entries} (in sequence order) of the run in one transaction; entries already
     * recorded (same sequence) are left as they are.
     *
     * @throws RuntimeException when they could not be recorded (they are offered again with the
     *     next flush)
     */
    void record(String tenant, String runId, List<RunEvent> entries);

    /**
     * The highest sequence recorded for the run, 0 when none (read once when a run is resumed).
     *
     * @throws RuntimeException when the records cannot be read
     */
    long lastRecorded(String tenant, String runId);

    /**
     * Output lines a run keeps, in the records and so in memory too: a journal takes this bound
     * when it is handed to the recorder. Negative (the default): the journal keeps its own.
     */
    default int maxLogLines() {
      return -1;
    }
  }

  private final List<RunEvent> events = new ArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final Clock clock;
  private final long base;
  private int maxLogLines; // guarded by lock once recording
  private boolean closed;
  private int logLines;
  private boolean logTruncated;

  // recording: guarded by lock
  private RecordingLane lane;
  private Recorder recorder;
  private String tenant;
  private String runId;
  private int recorded;
  private boolean flushQueued;

  public RunJournal(Clock clock) {
    this(clock, 0, DEFAULT_MAX_LOG_LINES);
  }

  /**
   * @param base the sequence before the first entry (0 for a new run)
   * @param maxLogLines output lines kept; later ones are dropped (see the class comment)
   */
  public RunJournal(Clock clock, long base, int maxLogLines) {
    if (base < 0 || maxLogLines < 0) {
      throw new IllegalArgumentException(
          "base and maxLogLines must not be negative, got " + base + ", " + maxLogLines);
    }
    this.clock = clock;
    this.base = base;
    this.maxLogLines = maxLogLines;
  }

  /** The sequence before this journal's first entry: older entries are only in the records. */
  public long base() {
    return base;
  }

  /**
   * Hands every entry, those appended so far included, to {@code recorder} on {@code lane} (see the
   * class comment), and keeps from now on at most the recorder's {@link Recorder#maxLogLines()}
   * output lines when it names a bound. Call once, before or right after the run starts.
   */
  public void recordTo(RecordingLane lane, Recorder recorder, String tenant, String runId) {
    lock.lock();
    try {
      if (recorder.maxLogLines() >= 0) {
        this.maxLogLines = recorder.maxLogLines();
      }
      this.lane = lane;
      this.recorder = recorder;
      this.tenant = tenant;
      this.runId = runId;
      queueFlush();
    } finally {
      lock.unlock();
    }
  }

  public void status(RunStatus status, String message) {
    append(seq -> RunEvent.status(seq, clock.instant(), status, message), status.isTerminal());
  }

  public void log(String address, String stream, String line) {
    lock.lock();
    try {
      if (logLines >= maxLogLines) {
        if (!logTruncated) {
          logTruncated = true;
          String note =
              "output beyond "
                  + maxLogLines
                  + " lines per run is not kept; the run goes on (docs/operations.md)";
          append(
              seq -> new RunEvent(seq, clock.instant(), "action", null, address, null, null, note),
              false);
        }
        return;
      }
      logLines++;
      append(
          seq -> new RunEvent(seq, clock.instant(), "log", null, address, stream, line, null),
          false);
    } finally {
      lock.unlock();
    }
  }

  public void action(String address, String message) {
    append(
        seq -> new RunEvent(seq, clock.instant(), "action", null, address, null, null, message),
        false);
  }

  private void append(LongFunction<RunEvent> event, boolean close) {
    lock.lock();
    try {
      events.add(event.apply(base + events.size() + 1L));
      closed |= close;
      appended.signalAll();
      queueFlush();
    } finally {
      lock.unlock();
    }
  }

  /** Under the lock: queues one flush on the lane unless one is queued or nothing is new. */
  private void queueFlush() {
    if (recorder != null && !flushQueued && recorded < events.size()) {
      flushQueued = true;
      lane.submit(this::flush);
    }
  }

  /** On the lane: records everything not recorded yet, in batches of at most 1,000 entries. */
  private void flush() {
    while (true) {
      List<RunEvent> batch;
      lock.lock();
      try {
        flushQueued = false;
        if (recorded >= events.size()) {
          return;
        }
        batch = List.copyOf(events.subList(recorded, Math.min(events.size(), recorded + 1000)));
      } finally {
        lock.unlock();
      }
      recorder.record(tenant, runId, batch); // throws: the next flush offers them again
      lock.lock();
      try {
        recorded += batch.size();
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Events with a sequence greater than {@code after}; waits up to {@code wait} when there are none
   * yet and the run is still going. Entries at or below {@link #base} are not here.
   */
  public List<RunEvent> after(long after, Duration wait) throws InterruptedException {
    lock.lock();
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      while (base + events.size() <= after && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        appended.await(left, TimeUnit.NANOSECONDS);
      }
      int from = (int) Math.min(Math.max(after - base, 0), events.size());
      return List.copyOf(events.subList(from, events.size()));
    } finally {
      lock.unlock();
    }
  }
}
