package dev.stagecraft.planner.service.run;

import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.util.List;

/** Port to the event bus. */
public interface EventOutbox {

  /** An envelope and its Kafka key. */
  record Keyed(EventEnvelope envelope, String key) {}

  /**
   * Publishes the envelopes in order and returns once the broker committed all of them (one wait
   * for the batch, not one per event).
   */
  void publishAll(List<Keyed> events);

  default void publish(EventEnvelope envelope, String key) {
    publishAll(List.of(new Keyed(envelope, key)));
  }

  /**
   * Hands the event to the bus without waiting for the broker. Events sent one after another (from
   * one thread, or under one lock) with the same key keep their order. A failure to deliver is
   * logged by the implementation, not reported to the caller. The default publishes and waits (for
   * test doubles); the Kafka adapter sends through the idempotent producer.
   */
  default void send(EventEnvelope envelope, String key) {
    publish(envelope, key);
  }
}
