package dev.stagecraft.schemas.action;

/**
 * What travels on {@code stagecraft.action-events}: an executor's report on an action it runs
 * (started, step, heartbeat, log line, finished). A {@code switch} over it is exhaustive; a new
 * event type on the topic is added here (and to {@code EventType}).
 */
public sealed interface ActionEvent
    permits ActionStarted, ActionStep, ActionHeartbeat, ActionLog, ActionFinished {
  String runId();

  String actionId();

  String address();
}
