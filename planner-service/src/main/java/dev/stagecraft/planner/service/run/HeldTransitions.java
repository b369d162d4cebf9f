package dev.stagecraft.planner.service.run;

import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands {@code dev.stagecraft.run.transitioned} events to the {@link EventOutbox}, holding back the
 * ones a run makes just before its first dispatch ({@code planning}, {@code planned}, {@code
 * applying}) until the dispatch was published, then all at once: instead of three produce requests
 * a few milliseconds apart, each waking the broker and every consumer of {@code
 * stagecraft.run-events} inside the run's start window, and each ahead of the dispatch on the
 * producer's connection (the broker handles one request per connection at a time), they follow the
 * dispatch (docs/adr/0033).
 *
 * <p>Guarantees: every event handed over is sent, at the latest {@code deadline} after the first
 * event held for its key (a run waiting for approval, or one whose planning takes long, does not
 * hold its {@code planned} longer); events of one key are sent in exactly the order they were
 * handed over (held or not: {@link #send} first sends what is held for the key), so ordering per
 * key is the same as sending each at once. {@link #close} sends everything still held. A crash
 * loses what is held, as it loses what the producer has not sent yet (docs/adr/0025).
 *
 * <p>Concurrency: thread-safe; one monitor orders every hand-over, so the outbox's {@code send}
 * (which does not wait for the broker) is called under it. The deadline runs on a daemon thread of
 * its own (not the coordinator's heartbeat thread, which makes blocking HTTP calls).
 */
final class HeldTransitions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeldTransitions.class);

  private final EventOutbox outbox;
  private final Duration deadline;
  private final Map<String, List<EventEnvelope>> held = new HashMap<>();
  private final ScheduledExecutorService timer;

  /**
   * @param deadline the longest an event is held; zero sends every event at once
   */
  HeldTransitions(EventOutbox outbox, Duration deadline) {
    if (deadline.isNegative()) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_TRANSITION_HOLD must be zero (no holding) or positive (e.g. 20ms), got "
              + deadline);
    }
    this.outbox = outbox;
    this.deadline = deadline;
    this.timer =
        deadline.isZero()
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "held-transitions");
                  t.setDaemon(true);
                  return t;
                });
  }

  /**
   * Holds {@code envelope} until the key's next {@link #send} or {@link #flush}, or the deadline.
   */
  synchronized void hold(EventEnvelope envelope, String key) {
    if (timer == null) {
      sendNow(envelope, key);
      return;
    }
    List<EventEnvelope> events = held.computeIfAbsent(key, k -> new ArrayList<>(4));
    events.add(envelope);
    if (events.size() == 1) {
      try {
        timer.schedule(() -> flush(key), deadline.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        flush(key); // closing: nothing waits any more
      }
    }
  }

  /** Sends what is held for {@code key}, then {@code envelope}. */
  synchronized void send(EventEnvelope envelope, String key) {
    flush(key);
    sendNow(envelope, key);
  }

  /** Sends what is held for {@code key} (before a dispatch, so they travel together). */
  synchronized void flush(String key) {
    List<EventEnvelope> events = held.remove(key);
    if (events != null) {
      events.forEach(e -> sendNow(e, key));
    }
  }

  /** Sends everything held and stops the deadline thread. */
  @Override
  public synchronized void close() {
    List.copyOf(held.keySet()).forEach(this::flush);
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  private void sendNow(EventEnvelope envelope, String key) {
    try {
      outbox.send(envelope, key);
    } catch (RuntimeException e) {
      LOG.warn(
          "could not publish {} of run {}: {}", envelope.type(), envelope.runid(), e.toString());
    }
  }
}
