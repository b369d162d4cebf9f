package dev.stagecraft.schemas.run;

/**
 * What travels on {@code stagecraft.run-requests} (and to the planner's webhook): signed triggers
 * from bots and CI, a request to start a run or a decision on one waiting for approval.
 */
public sealed interface TriggerEvent permits RunRequested, RunDecisionRequested {
  String requestedBy();
}
