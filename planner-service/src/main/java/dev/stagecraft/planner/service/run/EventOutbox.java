package dev.stagecraft.planner.service.run;

import dev.stagecraft.schemas.envelope.EventEnvelope;

/** Port to the event bus: publishes an envelope with a key and returns once it is committed. */
@FunctionalInterface
public interface EventOutbox {
  void publish(EventEnvelope envelope, String key);
}
