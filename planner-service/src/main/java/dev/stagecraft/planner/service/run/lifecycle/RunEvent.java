package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.ApplySteps;
import dev.stagecraft.planner.service.run.RunStatus;
import java.time.Instant;
import java.util.Map;

/**
 * What happened to a run, as {@link RunDecider#decide} found it and {@link RunDecider#apply}
 * replays it. A run's state is the fold of its events over {@link RunState#initial}.
 */
public sealed interface RunEvent {

  /** The run moved to {@code to}; {@code sequence} orders it among the run's events. */
  record Transitioned(RunStatus from, RunStatus to, String message, long sequence)
      implements RunEvent {}

  /**
   * The run was started again after a restart or adoption: its sequences continue from {@code
   * sequenceBase}; a resumed run that awaited approval must plan {@code planDigest} again, its
   * approval timeout counted from {@code plannedAt}; a carried-on run has {@code carried}.
   */
  record Restarted(long sequenceBase, String planDigest, Instant plannedAt, CarriedOver carried)
      implements RunEvent {}

  record QueuePositionChanged(int position) implements RunEvent {}

  record LockAcquired(String lockId, long fencingToken) implements RunEvent {}

  record LockReleased(String lockId) implements RunEvent {}

  /**
   * The state service opened the run; {@code credential} is the one it minted, or null when it
   * mints none.
   */
  record RunOpened(RunCredential credential) implements RunEvent {}

  /**
   * A carried-on run took back the credential its dispatches carry (docs/adr/0035): not opened yet,
   * it opens again before it plans the rest.
   */
  record CredentialTakenBack(RunCredential credential) implements RunEvent {}

  record CredentialRevoked() implements RunEvent {}

  /**
   * A carried-on run knows the recorded outcomes; its unfinished actions are in flight from now.
   */
  record CarriedTracked(Map<String, String> outcomes, Instant at) implements RunEvent {
    public CarriedTracked {
      outcomes = Map.copyOf(outcomes);
    }
  }

  /** The plan was made; the approval timeout counts from {@code plannedAt}. */
  record PlanMade(PlanInfo plan, Instant plannedAt) implements RunEvent {}

  record ApprovalRecorded(String by, Instant at) implements RunEvent {}

  /** The run applies: its steps are scheduled. */
  record ApplyScheduled(ApplySteps steps) implements RunEvent {}

  record ActionDispatched(String actionId, String address, String action, long sequence, Instant at)
      implements RunEvent {}

  record ActionStarted(String actionId, String executorId, Instant at) implements RunEvent {}

  record ActionSeen(
      String actionId,
      String executorId,
      Integer step,
      String stepType,
      String stepTarget,
      Instant at)
      implements RunEvent {
    /** Seen without a step named (a log line, a bare heartbeat). */
    public ActionSeen(String actionId, String executorId, Instant at) {
      this(actionId, executorId, null, null, null, at);
    }
  }

  /** An outcome was reported for the action (true), or must be reported again (false). */
  record ActionReported(String actionId, boolean reported) implements RunEvent {}

  /** The outcome of a step of the applied plan is recorded; {@code detail} is for the journal. */
  record ActionEnded(String actionId, String address, boolean succeeded, String detail)
      implements RunEvent {}

  /** The outcome of an action dispatched before a restart is recorded. */
  record CarriedActionRecorded(String actionId, String address, String outcome, String detail)
      implements RunEvent {}

  /** A silent action was reported {@code interrupted} on its executor's behalf. */
  record ActionInterrupted(String actionId, String address, String why, long sequence)
      implements RunEvent {}

  /** No executor started the action within the dispatch lease: it failed without running. */
  record ActionAbandoned(String actionId, String address, String why) implements RunEvent {}

  /** The run was canceled before any executor started the action: it is not waited for. */
  record ActionDropped(String actionId, String address) implements RunEvent {}

  /** The applying run was canceled: nothing more is dispatched. */
  record CancelRecorded(String by, long sequence) implements RunEvent {}

  /** Every step succeeded; the run ends {@code applied} once its outputs are recorded. */
  record ApplyFinishing(String message) implements RunEvent {}
}
