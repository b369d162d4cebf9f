package dev.stagecraft.schemas;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import dev.stagecraft.schemas.run.RunDecisionRequested;
import dev.stagecraft.schemas.run.RunRequested;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.state.StateRecorded;
import java.util.Arrays;
import java.util.Optional;

/**
 * Every event type Stagecraft emits: its CloudEvents {@code type}, the topic it travels on, its
 * data record and the JSON Schema file (under {@code schemas/} on the classpath) that validates the
 * whole envelope. Evolution is additive only; a breaking change is a new type.
 */
public enum EventType {
  ACTION_DISPATCHED(
      "dev.stagecraft.action.dispatched",
      Topics.ACTIONS,
      ActionDispatched.class,
      "action-dispatched"),
  ACTION_STARTED(
      "dev.stagecraft.action.started", Topics.ACTION_EVENTS, ActionStarted.class, "action-started"),
  ACTION_LOG("dev.stagecraft.action.log", Topics.ACTION_EVENTS, ActionLog.class, "action-log"),
  ACTION_STEP("dev.stagecraft.action.step", Topics.ACTION_EVENTS, ActionStep.class, "action-step"),
  ACTION_HEARTBEAT(
      "dev.stagecraft.action.heartbeat",
      Topics.ACTION_EVENTS,
      ActionHeartbeat.class,
      "action-heartbeat"),
  ACTION_FINISHED(
      "dev.stagecraft.action.finished",
      Topics.ACTION_EVENTS,
      ActionFinished.class,
      "action-finished"),
  STATE_RECORDED(
      "dev.stagecraft.state.recorded", Topics.STATE_EVENTS, StateRecorded.class, "state-recorded"),
  RUN_TRANSITIONED(
      "dev.stagecraft.run.transitioned",
      Topics.RUN_EVENTS,
      RunTransitioned.class,
      "run-transitioned"),
  RUN_REQUESTED(
      "dev.stagecraft.run.requested", Topics.RUN_REQUESTS, RunRequested.class, "run-requested"),
  RUN_DECISION_REQUESTED(
      "dev.stagecraft.run.decision-requested",
      Topics.RUN_REQUESTS,
      RunDecisionRequested.class,
      "run-decision-requested"),
  RUN_CANCEL_REQUESTED(
      "dev.stagecraft.run.cancel-requested",
      Topics.CONTROL,
      RunCancelRequested.class,
      "run-cancel-requested"),
  LOCK_FORCE_UNLOCKED(
      "dev.stagecraft.lock.force-unlocked",
      Topics.LOCK_EVENTS,
      LockForceUnlocked.class,
      "lock-force-unlocked"),
  LOCK_LEASE_EXPIRED(
      "dev.stagecraft.lock.lease-expired",
      Topics.LOCK_EVENTS,
      LockLeaseExpired.class,
      "lock-lease-expired");

  public static final String SCHEMA_VERSION = "1";

  private final String type;
  private final String topic;
  private final Class<?> dataClass;
  private final String schemaName;

  EventType(String type, String topic, Class<?> dataClass, String schemaName) {
    this.type = type;
    this.topic = topic;
    this.dataClass = dataClass;
    this.schemaName = schemaName;
  }

  public String type() {
    return type;
  }

  public String topic() {
    return topic;
  }

  public Class<?> dataClass() {
    return dataClass;
  }

  /** Classpath resource of the JSON Schema for this event's envelope. */
  public String schemaResource() {
    return "schemas/" + schemaName + ".v" + SCHEMA_VERSION + ".json";
  }

  public static Optional<EventType> of(String type) {
    return Arrays.stream(values()).filter(t -> t.type.equals(type)).findFirst();
  }

  public static EventType forData(Object data) {
    return Arrays.stream(values())
        .filter(t -> t.dataClass.isInstance(data))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("not an event record: " + data.getClass()));
  }
}
