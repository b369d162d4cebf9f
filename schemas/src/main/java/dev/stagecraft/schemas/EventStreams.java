package dev.stagecraft.schemas;

import dev.stagecraft.schemas.action.ActionEvent;
import dev.stagecraft.schemas.action.DispatchEvent;
import dev.stagecraft.schemas.control.ControlEvent;
import dev.stagecraft.schemas.lock.LockEvent;
import dev.stagecraft.schemas.run.RunLifecycleEvent;
import dev.stagecraft.schemas.run.TriggerEvent;
import dev.stagecraft.schemas.state.StateEvent;
import java.util.Map;
import java.util.Optional;

/**
 * The sealed interface of each event topic: what one stream can carry, so that a consumer's {@code
 * switch} over a stream's events is exhaustive. Every {@link EventType} of a topic implements that
 * topic's interface and each interface permits exactly its topic's types ({@code
 * EventStreamsTest}).
 */
public final class EventStreams {
  private static final Map<String, Class<?>> BY_TOPIC =
      Map.of(
          Topics.ACTIONS, DispatchEvent.class,
          Topics.ACTION_EVENTS, ActionEvent.class,
          Topics.STATE_EVENTS, StateEvent.class,
          Topics.RUN_EVENTS, RunLifecycleEvent.class,
          Topics.RUN_REQUESTS, TriggerEvent.class,
          Topics.CONTROL, ControlEvent.class,
          Topics.LOCK_EVENTS, LockEvent.class);

  private EventStreams() {}

  /** The sealed interface of {@code topic}'s events; empty for a topic without events. */
  public static Optional<Class<?>> of(String topic) {
    return Optional.ofNullable(BY_TOPIC.get(topic));
  }

  /** Every topic that carries events, with its sealed interface. */
  public static Map<String, Class<?>> all() {
    return BY_TOPIC;
  }
}
