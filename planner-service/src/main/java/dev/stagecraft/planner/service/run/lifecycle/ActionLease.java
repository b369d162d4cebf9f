package dev.stagecraft.planner.service.run.lifecycle;

import java.time.Instant;

/**
 * A dispatched action whose outcome is not recorded yet, and what the run knows of its liveness
 * (docs/adr/0007): dispatched (no executor took it yet), started by an executor (heartbeats keep it
 * alive), reported ({@code action.finished} seen or sent on its behalf).
 *
 * @param carried dispatched before a restart (docs/adr/0035): never treated as not started
 * @param takenBeforeRestart carried and taken by an executor before the restart (docs/adr/0056):
 *     the action lease applies from the restart
 * @param step the step its executor last reported running (1-based), or null
 * @param stepType that step's provisioner type ({@code remote-exec}, …), or null
 * @param stepTarget the host that step runs on, or null for the executor host
 */
public record ActionLease(
    String actionId,
    String address,
    String action,
    Instant dispatchedAt,
    String executorId,
    Instant lastSeen,
    boolean reported,
    boolean carried,
    boolean takenBeforeRestart,
    Integer step,
    String stepType,
    String stepTarget) {

  /** The executor of a carried action known alive before it named itself. */
  public static final String UNNAMED = "(unnamed: it started before its planner instance stopped)";

  static ActionLease dispatched(String actionId, String address, String action, Instant at) {
    return new ActionLease(
        actionId, address, action, at, null, null, false, false, false, null, null, null);
  }

  static ActionLease carried(CarriedAction a, Instant carriedAt) {
    return new ActionLease(
        a.actionId(),
        a.address(),
        a.action(),
        a.dispatchedAt(),
        a.taken() ? UNNAMED : null,
        a.taken() ? carriedAt : null,
        false,
        true,
        a.taken(),
        null,
        null,
        null);
  }

  public boolean started() {
    return executorId != null;
  }

  ActionLease startedBy(String executor, Instant at) {
    return new ActionLease(
        actionId,
        address,
        action,
        dispatchedAt,
        executor,
        at,
        reported,
        carried,
        false,
        step,
        stepType,
        stepTarget);
  }

  /** Heard from {@code executor} at {@code at}, running {@code atStep} when not null. */
  ActionLease seen(String executor, Instant at, Integer atStep, String type, String target) {
    String named = executorId == null || UNNAMED.equals(executorId) ? executor : executorId;
    boolean stepKnown = atStep != null;
    return new ActionLease(
        actionId,
        address,
        action,
        dispatchedAt,
        named,
        at,
        reported,
        carried,
        false,
        stepKnown ? atStep : step,
        stepKnown ? type : stepType,
        stepKnown ? target : stepTarget);
  }

  ActionLease reported(boolean value) {
    return new ActionLease(
        actionId,
        address,
        action,
        dispatchedAt,
        executorId,
        lastSeen,
        value,
        carried,
        takenBeforeRestart,
        step,
        stepType,
        stepTarget);
  }
}
