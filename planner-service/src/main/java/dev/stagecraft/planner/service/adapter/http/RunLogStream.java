package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.db.RunJournalFollowers;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import io.micronaut.http.sse.Event;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A run's journal as Server-Sent Events: one event per journal entry, named by its kind ({@code
 * status}, {@code action}, {@code log}), with the entry's sequence as the event id and the entry as
 * JSON data. It starts after {@code afterSequence} (the client's {@code Last-Event-ID}), so a
 * reconnecting client gets exactly the entries it missed, and completes after the run's terminal
 * transition (at once when that was already sent).
 *
 * <p>Two sources, same entries and ids (docs/adr/0032): {@link #live} for the instance that drives
 * the run (its in-memory journal; for a run resumed after a restart, the entries of its previous
 * life from the records first), {@link #recorded} for any other instance (the run's recorded
 * journal, {@code planner.run_journal}, read again whenever the recording instance notifies that it
 * recorded entries of the run, and at least every safety re-read interval, until the terminal
 * transition: docs/adr/0037. It serves what is recorded, so it trails the live journal by the
 * recording lane's lag). A recorded run that ended without its terminal entry in the table (the
 * last batch failed to save) gets that entry made from the run's record: the stream always ends
 * with the terminal transition.
 *
 * <p>Concurrency: each subscription reads its source on its own virtual thread, which is the only
 * thread that calls {@code onNext}/{@code onComplete}/{@code onError}. It honours demand: it parks
 * while nothing is requested and {@link Subscription#request} unparks it. {@link
 * Subscription#cancel} (the client went away) stops it within one wait ({@link #POLL}); a recorded
 * source's wait for a notification is a park, which cancel cuts short. Single subscription: the
 * server subscribes once per response.
 */
final class RunLogStream implements Publisher<Event<RunEvent>> {
  /** How long one journal read waits for news before checking for a cancel. */
  static final Duration POLL = Duration.ofSeconds(1);

  private static final Set<String> TERMINAL =
      Set.of("applied", "planned_and_finished", "errored", "canceled", "discarded");

  /** Recorded entries read per query. */
  static final int PAGE = 500;

  /** Where a stream reads a run's entries; used by the stream's one reader thread only. */
  interface Source {
    /** Whether the run has ended; asked before each {@link #after}. */
    boolean terminal() throws Exception;

    /**
     * Entries with a sequence above {@code after}, in order; when there are none yet, waits up to
     * {@code wait} (unless the last {@link #terminal} said the run ended) and may return none.
     */
    List<RunEvent> after(long after, Duration wait) throws Exception;

    /** The stream is done with the source (called once, by the reader thread). */
    default void close() {}
  }

  /**
   * The journal of a run this instance drives. A resumed run's entries from before the restart
   * (sequences up to its journal's base) come from {@code records}.
   */
  static Source live(Run run, RunJournalStore records) {
    String tenant = run.request().tenant();
    return new Source() {
      @Override
      public boolean terminal() {
        return run.summary().terminal();
      }

      @Override
      public List<RunEvent> after(long after, Duration wait) throws Exception {
        long base = run.journal().base();
        if (after < base) {
          List<RunEvent> before = records.after(tenant, run.id(), after, base, PAGE);
          if (!before.isEmpty()) {
            return before;
          }
        }
        return run.journal().after(after, wait);
      }
    };
  }

  /**
   * The recorded journal of a run of {@code tenant} that another instance drives or drove. When
   * there is nothing newer it waits for {@code followers} to say entries of the run were recorded
   * (at most their safety re-read interval; {@code wait} does not apply); a cancel unparks it.
   */
  static Source recorded(
      String tenant,
      String runId,
      RunJournalStore records,
      RunStore runs,
      RunJournalFollowers followers) {
    return recorded(tenant, runId, records::after, records::last, runs, followers);
  }

  /** A run's recorded entries after a sequence, up to another, at most {@code limit} of them. */
  @FunctionalInterface
  interface EntriesAfter {
    List<RunEvent> read(String tenant, String runId, long after, long upTo, int limit)
        throws SQLException;
  }

  /** A run's last recorded entry, or null. */
  @FunctionalInterface
  interface LastEntry {
    RunEvent read(String tenant, String runId) throws SQLException;
  }

  /** {@link #recorded} reading the journal through {@code entries} and {@code lastEntry}. */
  static Source recorded(
      String tenant,
      String runId,
      EntriesAfter entries,
      LastEntry lastEntry,
      RunStore runs,
      RunJournalFollowers followers) {
    return new Source() {
      // taken by the first read, so a stream that is never read leaves no watch behind
      private RunJournalFollowers.Watch watch;
      private RunStore.RunRecord record;
      private long seen;

      @Override
      public boolean terminal() throws Exception {
        if (watch == null) {
          watch = followers.watch(runId);
        }
        // taken before both reads: anything recorded after them changes it
        seen = watch.version();
        // a run whose record vanished has nothing more to send
        record = runs.find(tenant, runId).orElse(null);
        return record == null || record.terminal();
      }

      @Override
      public List<RunEvent> after(long after, Duration wait) throws Exception {
        List<RunEvent> found = entries.read(tenant, runId, after, Long.MAX_VALUE, PAGE);
        if (!found.isEmpty() || record == null) {
          return found;
        }
        if (record.terminal()) {
          RunEvent last = lastEntry.read(tenant, runId);
          if (last != null && last.sequence() > after) {
            // recorded between the two reads (the owner's last batch, with the terminal
            // transition, may land just then): send those, not a made-up end
            return entries.read(tenant, runId, after, Long.MAX_VALUE, PAGE);
          }
          RunEvent missing = missingTerminal(record, last, after);
          return missing == null ? List.of() : List.of(missing);
        }
        watch.await(seen, followers.reread()); // a cancel unparks: the client went away
        return found;
      }

      @Override
      public void close() {
        if (watch != null) {
          watch.close();
        }
      }
    };
  }

  /**
   * The terminal entry a recorded journal lacks, made from the run's record: when the run has
   * ended, the reader has seen nothing beyond the recorded entries ({@code after} at most the last
   * one's sequence) and the last recorded entry is not a terminal transition (the owner's last
   * batch failed to save, or it recorded none). Numbered right after the last recorded entry, with
   * the record's status, message and time. Null when nothing is missing.
   */
  static RunEvent missingTerminal(RunStore.RunRecord record, RunEvent last, long after) {
    if (!record.terminal()) {
      return null;
    }
    long lastSequence = last == null ? 0 : last.sequence();
    if (after > lastSequence) {
      return null; // the reader has entries the table lacks (from the owner): not ours to number
    }
    if (last != null && "status".equals(last.kind()) && TERMINAL.contains(last.status())) {
      return null;
    }
    return new RunEvent(
        lastSequence + 1,
        record.updatedAt(),
        "status",
        record.status(),
        null,
        null,
        null,
        record.message());
  }

  private final String runId;
  private final Source source;
  private final long afterSequence;

  RunLogStream(String runId, Source source, long afterSequence) {
    this.runId = runId;
    this.source = source;
    this.afterSequence = Math.max(afterSequence, 0);
  }

  @Override
  public void subscribe(Subscriber<? super Event<RunEvent>> subscriber) {
    AtomicLong demand = new AtomicLong();
    AtomicBoolean canceled = new AtomicBoolean();
    Thread reader =
        Thread.ofVirtual()
            .name("run-logs-" + runId)
            .unstarted(() -> pump(subscriber, demand, canceled));
    subscriber.onSubscribe(
        new Subscription() {
          @Override
          public void request(long n) {
            if (n <= 0) {
              canceled.set(true);
              subscriber.onError(
                  new IllegalArgumentException("request(n) needs n > 0 (rule 3.9), got " + n));
            } else {
              demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            }
            LockSupport.unpark(reader);
          }

          @Override
          public void cancel() {
            canceled.set(true);
            LockSupport.unpark(reader);
          }
        });
    reader.start();
  }

  private void pump(
      Subscriber<? super Event<RunEvent>> subscriber, AtomicLong demand, AtomicBoolean canceled) {
    long sent = afterSequence;
    try {
      while (!canceled.get()) {
        // asked before the read: a run that had ended then has every entry in what follows
        boolean terminal = source.terminal();
        List<RunEvent> events = source.after(sent, POLL);
        boolean ended = false;
        for (RunEvent event : events) {
          while (demand.get() == 0 && !canceled.get()) {
            LockSupport.park(this);
          }
          if (canceled.get()) {
            return;
          }
          demand.decrementAndGet();
          subscriber.onNext(Event.of(event).id(Long.toString(event.sequence())).name(event.kind()));
          sent = event.sequence();
          ended |= "status".equals(event.kind()) && TERMINAL.contains(event.status());
        }
        // a terminal run whose journal has nothing newer: the stream is done (also when a client
        // reconnects with the id of the terminal transition)
        if (ended || (events.isEmpty() && terminal)) {
          subscriber.onComplete();
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!canceled.get()) {
        subscriber.onError(e);
      }
    } catch (Exception e) {
      if (!canceled.get()) {
        subscriber.onError(e);
      }
    } finally {
      source.close();
    }
  }
}
