package dev.stagecraft.state.application;

import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.OutputsDecision;
import dev.stagecraft.state.history.StateDecider;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.TaintDecision;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Use cases: the changes a lock holder (or an operator) makes to a workspace's state outside an
 * action result — taint marks, a run's root outputs, a rollback, a deletion, the record of a forced
 * unlock. Each decides under the workspace's row lock ({@link LockedChanges}) with the deciders of
 * {@code history} and appends what they decided; a refusal is the decision's rejection (a value),
 * with nothing written. Thread-safe (no state of its own).
 */
public final class StateChanges {
  private final LockedChanges locked;
  private final StateDecider decider;

  public StateChanges(LockedChanges locked, StateDecider decider) {
    this.locked = locked;
    this.decider = decider;
  }

  /**
   * Marks the instance at {@code address} tainted or clears the mark ({@link
   * StateDecider#decideTaint}). Not idempotent by an id: marking a tainted instance again changes
   * nothing, but clearing a mark twice is refused the second time ({@link
   * TaintDecision.Rejection#NOT_TAINTED}).
   *
   * @param actor who asked (stored with the event), or null
   */
  public TaintDecision changeTaint(
      String tenant,
      String workspace,
      String address,
      boolean tainted,
      long fencingToken,
      String actor)
      throws SQLException {
    return locked.decideAndAppend(
        new LockedChanges.Writer(tenant, workspace, fencingToken, "taint-", null, actor),
        (state, newest) -> {
          TaintDecision d = decider.decideTaint(address, tainted, fencingToken, state, newest);
          return new LockedChanges.Decided<>(d, d.accepted() ? d.events() : null);
        });
  }

  /**
   * Records a run's root outputs (docs/adr/0064; {@link StateDecider#decideOutputs}): a stale token
   * is refused; the same outputs again append nothing, so a retry is harmless.
   *
   * @param outputs as the planner sent them (checked by the decider)
   */
  public OutputsDecision recordOutputs(
      String tenant, String workspace, String runId, long fencingToken, Object outputs)
      throws SQLException {
    return locked.decideAndAppend(
        new LockedChanges.Writer(tenant, workspace, fencingToken, "outputs-", runId, null),
        (state, newest) -> {
          OutputsDecision d = decider.decideOutputs(outputs, fencingToken, state, newest);
          return new LockedChanges.Decided<>(d, appended(d.accepted(), d.events()));
        });
  }

  /**
   * Writes version {@code serial} ({@code target}, the state at that version) again with serial
   * current + 1 ({@link DocumentDecider#rollback}), recorded as {@code state_rolled_back} with the
   * actor.
   */
  public DocumentDecider.Outcome rollback(
      String tenant,
      String workspace,
      long fencingToken,
      String actor,
      long serial,
      WorkspaceState target)
      throws SQLException {
    Map<String, Object> document = TerraformStateV4.render(target, target.lineage());
    return changeDocument(
        new LockedChanges.Writer(tenant, workspace, fencingToken, "document-", null, actor),
        (state, newest) -> DocumentDecider.rollback(document, serial, state, fencingToken, newest));
  }

  /**
   * Deletes the workspace's state ({@link DocumentDecider#delete}: a {@code state_deleted} event;
   * nothing is physically removed; an empty state stays as it is).
   */
  public DocumentDecider.Outcome delete(
      String tenant, String workspace, long fencingToken, String actor, String reason)
      throws SQLException {
    return changeDocument(
        new LockedChanges.Writer(tenant, workspace, fencingToken, "document-", null, actor),
        (state, newest) -> DocumentDecider.delete(state, fencingToken, newest, reason));
  }

  /**
   * Records in the workspace's history that its lock was forced open (who, why); changes no state
   * and is never refused.
   */
  public void recordForceUnlock(
      String tenant, String workspace, StateEvent.LockForceUnlocked event, String actor)
      throws SQLException {
    // no token of its own: nothing decides on it, and it never advances the newest
    locked.decideAndAppend(
        new LockedChanges.Writer(tenant, workspace, Long.MIN_VALUE, "force-unlock-", null, actor),
        (state, newest) -> new LockedChanges.Decided<>(event, List.<StateEvent>of(event)));
  }

  /** A whole-document change decided by {@code decide}: appended when accepted with events. */
  private DocumentDecider.Outcome changeDocument(
      LockedChanges.Writer writer, BiFunction<WorkspaceState, Long, DocumentDecider.Outcome> decide)
      throws SQLException {
    return locked.decideAndAppend(
        writer,
        (state, newest) -> {
          DocumentDecider.Outcome outcome = decide.apply(state, newest);
          return new LockedChanges.Decided<>(
              outcome, appended(outcome.accepted(), outcome.events()));
        });
  }

  /** The events to append: none (null) when refused or when nothing changes. */
  private static List<StateEvent> appended(boolean accepted, List<StateEvent> events) {
    return accepted && !events.isEmpty() ? events : null;
  }
}
