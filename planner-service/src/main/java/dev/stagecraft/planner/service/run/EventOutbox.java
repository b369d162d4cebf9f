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
}
