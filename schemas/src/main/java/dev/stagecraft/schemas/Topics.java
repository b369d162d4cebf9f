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

  public static final List<String> ALL = List.of(ACTIONS, ACTION_EVENTS, STATE_EVENTS, RUN_EVENTS);

  private Topics() {}
}
