package dev.stagecraft.schemas;

import java.util.List;

/** Kafka topic names. Keys and ordering are documented in docs/events.md. */
public final class Topics {
  /**
   * Planner → executors: actions ready to run. Key: run id + action id (spread for parallelism).
   */
  public static final String ACTIONS = "stagecraft.actions";

  /** Executors → state-service and planner: started, log lines, finished. Key: tenant/workspace. */
  public static final String ACTION_EVENTS = "stagecraft.action-events";

  /** State-service → planner: an action's outcome is durably recorded. Key: tenant/workspace. */
  public static final String STATE_EVENTS = "stagecraft.state-events";

  /** Planner → anyone (CLI, bots): run lifecycle transitions. Key: tenant/workspace. */
  public static final String RUN_EVENTS = "stagecraft.run-events";

  /**
   * Planner → every executor instance (one consumer group per instance, from the latest offset):
   * requests to stop a run's running actions. Key: tenant/workspace.
   */
  public static final String CONTROL = "stagecraft.control";

  /**
   * State-service → anyone (auditors, bots): workspace lock events with an audit value, such as a
   * force-unlock (who, why). Key: tenant/workspace.
   */
  public static final String LOCK_EVENTS = "stagecraft.lock-events";

  public static final List<String> ALL =
      List.of(ACTIONS, ACTION_EVENTS, STATE_EVENTS, RUN_EVENTS, CONTROL, LOCK_EVENTS);

  private Topics() {}
}
