package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * An event the checker saw on one side of a stream: {@link Side#UPSTREAM} when its producer had it
 * committed (acknowledged by the broker, or committed in an outbox), {@link Side#DOWNSTREAM} when
 * its consumer (or the topic read back at the end) had it.
 *
 * @param stream the stream it travels on (a topic name, or {@code outbox→topic})
 * @param eventId the event's id (the envelope id)
 * @param side which side saw it
 * @param at when it was seen
 */
public record EventSighting(String stream, String eventId, Side side, Instant at) {

  /** Which end of the stream saw the event. */
  public enum Side {
    UPSTREAM,
    DOWNSTREAM
  }

  public EventSighting {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(side, "side");
  }
}
