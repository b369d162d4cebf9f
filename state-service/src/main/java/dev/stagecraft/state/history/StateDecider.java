package dev.stagecraft.state.history;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.state.history.Decision.Outcome;
import dev.stagecraft.state.history.StateEvent.InstanceRemoved;
import dev.stagecraft.state.history.StateEvent.InstanceTaintChanged;
import dev.stagecraft.state.history.StateEvent.InstanceWritten;
import dev.stagecraft.state.history.StateEvent.LineageAssigned;
import dev.stagecraft.state.history.StateEvent.RemoveKind;
import dev.stagecraft.state.history.StateEvent.WriteKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Decides how an executor's action result changes a workspace's state (docs/internal-api.md):
 *
 * <ul>
 *   <li>a fencing token older than the newest seen → nothing written, {@code rejected};
 *   <li>succeeded create/replace/update → instance written (attributes, dependencies and the
 *       lifecycle flags {@code createBeforeDestroy}/{@code skipDestroy} of the result, absent =
 *       false), serial + 1; a replace overwrites the old object whether it was destroyed first,
 *       created first or only forgotten ({@code ["forget","create"]});
 *   <li>succeeded delete/forget → instance removed, serial + 1 (nothing when already absent); a
 *       forget is recorded as {@code instance_forgotten}, nothing else is written;
 *   <li>failed create/replace → instance written tainted, serial + 1, {@code failed};
 *   <li>failed update/delete/forget → instance kept as it was, {@code failed}.
 *   <li>{@code interrupted} (the executor stopped reporting mid-action; published by the planner)
 *       and {@code canceled} are failures: a create/replace whose steps were cut is written
 *       tainted, a delete leaves the instance in state (the next destroy runs its destroy-time
 *       steps again, knowingly). Only the first outcome of an action counts (see StateStore).
 * </ul>
 *
 * <p>And how a hand-made taint change ({@code stagecraft taint} / {@code untaint}) does ({@link
 * #decideTaint}): a stale fencing token, an invalid address or an address not in the state →
 * refused; taint → the instance's mark set, serial + 1 (nothing when it is tainted already, as
 * Terraform's {@code taint} succeeds then too); untaint of a tainted instance → mark cleared,
 * serial + 1; untaint of one that is not tainted → refused, as in Terraform.
 *
 * <p>And a run's root outputs ({@link #decideOutputs}): the whole set replaces the state's.
 *
 * <p>An action on a moved instance ({@code previousAddress}) first moves it ({@link #decideMoved}).
 *
 * <p>Pure function of its inputs plus the injected lineage id generator; not thread-safe only in
 * the sense that the generator must be.
 */
public final class StateDecider {
  private final Supplier<String> lineageIds;

  public StateDecider(Supplier<String> lineageIds) {
    this.lineageIds = lineageIds;
  }

  public Decision decide(ActionFinished result, WorkspaceState current, long newestFencingToken) {
    if (result.fencingToken() < newestFencingToken) {
      return rejected(
          current,
          "fencing token "
              + result.fencingToken()
              + " is older than the newest token "
              + newestFencingToken
              + " seen for this workspace: the run lost its lock; acquire the lock again and"
              + " re-plan");
    }
    try {
      InstanceAddress.parse(result.address());
    } catch (IllegalArgumentException e) {
      return rejected(current, e.getMessage());
    }
    if (result.previousAddress() != null) {
      return decideMoved(result, current);
    }
    boolean succeeded = result.succeeded();
    if (!succeeded
        && !ActionFinished.FAILED.equals(result.outcome())
        && !ActionFinished.INTERRUPTED.equals(result.outcome())
        && !ActionFinished.CANCELED.equals(result.outcome())) {
      return rejected(current, "unknown action outcome '" + result.outcome() + "'");
    }
    String action = result.action() == null ? "" : result.action();
    return switch (action) {
      case "create", "replace", "update" -> {
        if (succeeded) {
          WriteKind kind =
              switch (action) {
                case "create" -> WriteKind.CREATED;
                case "replace" -> WriteKind.REPLACED;
                default -> WriteKind.UPDATED;
              };
          yield write(current, written(result, false, kind), Outcome.SUCCEEDED, null);
        }
        if (action.equals("update")) {
          yield new Decision(List.of(), Outcome.FAILED, result.error(), current.serial());
        }
        yield write(
            current, written(result, true, WriteKind.TAINTED), Outcome.FAILED, result.error());
      }
      case "delete", "forget" -> {
        if (!succeeded) {
          yield new Decision(List.of(), Outcome.FAILED, result.error(), current.serial());
        }
        if (!current.instances().containsKey(result.address())) {
          yield new Decision(List.of(), Outcome.SUCCEEDED, null, current.serial());
        }
        RemoveKind kind = action.equals("delete") ? RemoveKind.DELETED : RemoveKind.FORGOTTEN;
        yield write(current, new InstanceRemoved(result.address(), kind), Outcome.SUCCEEDED, null);
      }
      default ->
          rejected(
              current,
              "unknown action '"
                  + action
                  + "'; expected create, update, replace, delete, forget or move (with a"
                  + " previous address)");
    };
  }

  /**
   * An action on an instance that a move put at {@code address}: the state holds it at {@code
   * previousAddress} (or, when this result comes again, already at {@code address}). The move is
   * recorded whatever the outcome ({@code instance_moved}, with the new type and attributes for a
   * move between types), then the outcome as for an instance at {@code address}; a {@code move}
   * action has no other outcome. A move whose destination is taken, or whose source is gone, moves
   * nothing.
   */
  private Decision decideMoved(ActionFinished result, WorkspaceState current) {
    String from = result.previousAddress();
    try {
      InstanceAddress.parse(from);
    } catch (IllegalArgumentException e) {
      return rejected(current, "previous address: " + e.getMessage());
    }
    List<StateEvent> events = new ArrayList<>();
    WorkspaceState moved = current;
    InstanceState source = current.instances().get(from);
    if (source != null && !current.instances().containsKey(result.address())) {
      boolean typeChanges =
          result.resourceType() != null && !result.resourceType().equals(source.resourceType());
      StateEvent move =
          new StateEvent.InstanceMoved(
              from,
              result.address(),
              typeChanges ? result.resourceType() : null,
              typeChanges ? result.attributes() : null);
      events.add(move);
      moved = current.apply(move);
    }
    Decision rest =
        "move".equals(result.action())
            ? new Decision(
                List.of(),
                result.succeeded() ? Outcome.SUCCEEDED : Outcome.FAILED,
                result.succeeded() ? null : result.error(),
                moved.serial())
            : decide(result.withPreviousAddress(null), moved, result.fencingToken());
    if (rest.outcome() == Outcome.REJECTED) {
      return rejected(current, rest.error());
    }
    events.addAll(rest.events());
    WorkspaceState after = current;
    for (StateEvent e : events) {
      after = after.apply(e);
    }
    return new Decision(events, rest.outcome(), rest.error(), after.serial());
  }

  /**
   * Decides a request to mark the instance at {@code address} tainted ({@code tainted = true}) or
   * to clear its mark, made by a holder of the workspace lock with {@code fencingToken}.
   *
   * @param newestFencingToken the newest token the state service has seen for the workspace
   */
  public TaintDecision decideTaint(
      String address,
      boolean tainted,
      long fencingToken,
      WorkspaceState current,
      long newestFencingToken) {
    if (fencingToken < newestFencingToken) {
      return refused(
          current,
          TaintDecision.Rejection.STALE_FENCING_TOKEN,
          "fencing token "
              + fencingToken
              + " is older than the newest token "
              + newestFencingToken
              + " seen for this workspace: the caller lost the workspace lock; acquire it again");
    }
    InstanceAddress parsed;
    try {
      parsed = InstanceAddress.parse(address);
    } catch (IllegalArgumentException e) {
      return refused(current, TaintDecision.Rejection.INVALID_ADDRESS, e.getMessage());
    }
    if (!"managed".equals(parsed.mode())) {
      return refused(
          current,
          TaintDecision.Rejection.INVALID_ADDRESS,
          "resource instance " + parsed + " cannot be tainted: only managed resources can be");
    }
    String canonical = parsed.toString();
    InstanceState instance = current.instances().get(canonical);
    if (instance == null) {
      return refused(
          current,
          TaintDecision.Rejection.NO_SUCH_INSTANCE,
          "No such resource instance: " + canonical);
    }
    if (instance.tainted() == tainted) {
      if (tainted) {
        return new TaintDecision(List.of(), null, null, current.serial());
      }
      return refused(
          current,
          TaintDecision.Rejection.NOT_TAINTED,
          "Resource instance "
              + canonical
              + " is not currently tainted, and so it cannot be untainted.");
    }
    return new TaintDecision(
        List.of(new InstanceTaintChanged(canonical, tainted)), null, null, current.serial() + 1);
  }

  /**
   * Decides a run's root outputs, sent by the planner after the run applied every action
   * (docs/adr/0064): {@code outputs} (name → {@code {"value", "type", "sensitive"}}) replaces the
   * state's whole set of outputs. A stale fencing token or outputs not in that form → refused,
   * nothing written; the same outputs as the state holds → accepted without an event (a retry after
   * a lost answer changes nothing); else {@code outputs_written}, serial + 1 (after {@code
   * lineage_assigned} on a workspace never written).
   *
   * @param newestFencingToken the newest token the state service has seen for the workspace
   */
  public OutputsDecision decideOutputs(
      Object outputs, long fencingToken, WorkspaceState current, long newestFencingToken) {
    if (fencingToken < newestFencingToken) {
      return new OutputsDecision(
          List.of(),
          OutputsDecision.Rejection.STALE_FENCING_TOKEN,
          "fencing token "
              + fencingToken
              + " is older than the newest token "
              + newestFencingToken
              + " seen for this workspace: the run lost its lock; its outputs are not recorded",
          current.serial());
    }
    Map<String, Object> normal;
    try {
      normal = RootOutputs.normalized(outputs);
    } catch (IllegalArgumentException e) {
      return new OutputsDecision(
          List.of(), OutputsDecision.Rejection.INVALID_OUTPUTS, e.getMessage(), current.serial());
    }
    if (DocumentDecider.sameJson(current.outputs(), normal)) {
      return new OutputsDecision(List.of(), null, null, current.serial());
    }
    List<StateEvent> events = new ArrayList<>();
    if (current.isEmpty()) {
      events.add(new LineageAssigned(lineageIds.get()));
    }
    events.add(new StateEvent.OutputsWritten(normal));
    return new OutputsDecision(events, null, null, current.serial() + 1);
  }

  private static TaintDecision refused(
      WorkspaceState current, TaintDecision.Rejection rejection, String error) {
    return new TaintDecision(List.of(), rejection, error, current.serial());
  }

  private static InstanceWritten written(ActionFinished result, boolean tainted, WriteKind kind) {
    return new InstanceWritten(
        result.address(),
        result.resourceType(),
        result.attributes(),
        result.dependencies(),
        tainted,
        kind,
        Boolean.TRUE.equals(result.createBeforeDestroy()),
        Boolean.TRUE.equals(result.skipDestroy()));
  }

  private Decision write(WorkspaceState current, StateEvent change, Outcome outcome, String error) {
    List<StateEvent> events = new ArrayList<>();
    if (current.isEmpty()) {
      events.add(new LineageAssigned(lineageIds.get()));
    }
    events.add(change);
    return new Decision(events, outcome, error, current.serial() + 1);
  }

  private static Decision rejected(WorkspaceState current, String error) {
    return new Decision(List.of(), Outcome.REJECTED, error, current.serial());
  }
}
