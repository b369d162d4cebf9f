package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunEvent;
import io.micronaut.http.sse.Event;
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
 * <p>Concurrency: each subscription reads the journal on its own virtual thread, which is the only
 * thread that calls {@code onNext}/{@code onComplete}/{@code onError}. It honours demand: it parks
 * while nothing is requested and {@link Subscription#request} unparks it. {@link
 * Subscription#cancel} (the client went away) stops it within one journal wait ({@link #POLL}).
 * Single subscription: the server subscribes once per response.
 */
final class RunLogStream implements Publisher<Event<RunEvent>> {
  /** How long one journal read waits for news before checking for a cancel. */
  static final Duration POLL = Duration.ofSeconds(1);

  private static final Set<String> TERMINAL =
      Set.of("applied", "planned_and_finished", "errored", "canceled", "discarded");
  private final Run run;
  private final long afterSequence;

  RunLogStream(Run run, long afterSequence) {
    this.run = run;
    this.afterSequence = Math.max(afterSequence, 0);
  }

  @Override
  public void subscribe(Subscriber<? super Event<RunEvent>> subscriber) {
    AtomicLong demand = new AtomicLong();
    AtomicBoolean canceled = new AtomicBoolean();
    Thread reader =
        Thread.ofVirtual()
            .name("run-logs-" + run.id())
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
        List<RunEvent> events = run.journal().after(sent, POLL);
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
        if (ended || (events.isEmpty() && run.summary().terminal())) {
          subscriber.onComplete();
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!canceled.get()) {
        subscriber.onError(e);
      }
    } catch (RuntimeException e) {
      if (!canceled.get()) {
        subscriber.onError(e);
      }
    }
  }
}
