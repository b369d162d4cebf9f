package dev.stagecraft.schemas.action;

/** What travels on {@code stagecraft.actions}: the planner's requests to run an action. */
public sealed interface DispatchEvent permits ActionDispatched {
  String runId();

  String actionId();
}
