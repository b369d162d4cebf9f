package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.ApplySteps;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionAbandoned;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionDispatched;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionDropped;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionEnded;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionInterrupted;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionReported;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionSeen;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionStarted;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ApplyFinishing;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ApplyScheduled;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ApprovalRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.CancelRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.CarriedActionRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.CarriedTracked;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.CredentialRevoked;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.LockAcquired;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.LockReleased;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.PlanMade;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.QueuePositionChanged;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Restarted;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.RunOpened;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import java.util.function.UnaryOperator;

/** How each {@link RunEvent} changes a {@link RunState}: the body of {@link RunDecider#apply}. */
final class RunEvolution {
  private RunEvolution() {}

  static RunState apply(RunState state, RunEvent event) {
    RunState.Builder b = state.toBuilder();
    switch (event) {
      case Transitioned t -> {
        b.status = t.to();
        b.message = t.message();
        b.sequence = Math.max(b.sequence, t.sequence());
      }
      case Restarted r -> {
        b.sequence = r.sequenceBase();
        b.restarted = true;
        b.resumedPlanDigest = r.planDigest();
        b.plannedAt = r.plannedAt();
        b.carried = r.carried();
      }
      case QueuePositionChanged q -> b.queuePosition = q.position();
      case LockAcquired l -> b.lock = new RunState.Lock(l.lockId(), l.fencingToken());
      case LockReleased l -> b.lock = null;
      case RunOpened o -> {
        b.opened = true;
        b.credential = o.credential();
      }
      case RunEvent.CredentialTakenBack t -> b.credential = t.credential();
      case CredentialRevoked c -> b.credential = null;
      case CarriedTracked c -> carriedTracked(b, c);
      case PlanMade p -> {
        b.plan = p.plan();
        b.plannedAt = p.plannedAt();
      }
      case ApprovalRecorded a -> {
        b.approvedBy = a.by();
        b.approvedAt = a.at();
      }
      case ApplyScheduled s -> b.steps = s.steps();
      case ActionDispatched a -> {
        b.steps = b.steps.dispatched(a.address());
        b.inFlight.putIfAbsent(
            a.actionId(), ActionLease.dispatched(a.actionId(), a.address(), a.action(), a.at()));
        b.sequence = Math.max(b.sequence, a.sequence());
      }
      case ActionStarted a -> lease(b, a.actionId(), l -> l.startedBy(a.executorId(), a.at()));
      case ActionSeen a -> lease(b, a.actionId(), l -> seen(l, a));
      case ActionReported a -> lease(b, a.actionId(), l -> l.reported(a.reported()));
      case ActionEnded a -> {
        b.inFlight.remove(a.actionId());
        b.steps = a.succeeded() ? b.steps.succeeded(a.address()) : b.steps.failed(a.address());
      }
      case CarriedActionRecorded a -> {
        b.inFlight.remove(a.actionId());
        b.carried = b.carried.recorded(a.actionId(), a.outcome());
      }
      case ActionInterrupted a -> {
        lease(b, a.actionId(), l -> l.reported(true));
        b.cutShort.put(a.address(), a.why());
        b.sequence = Math.max(b.sequence, a.sequence());
      }
      case ActionAbandoned a -> {
        b.inFlight.remove(a.actionId());
        b.cutShort.put(a.address(), a.why());
        if (b.steps != null && b.steps.status(a.address()) == ApplySteps.Status.DISPATCHED) {
          b.steps = b.steps.failed(a.address());
        }
      }
      case ActionDropped a -> b.inFlight.remove(a.actionId());
      case CancelRecorded c -> {
        b.cancelRequestedBy = c.by();
        b.sequence = Math.max(b.sequence, c.sequence());
      }
      case ApplyFinishing f -> b.finishingMessage = f.message();
    }
    return b.build();
  }

  /** The recorded outcomes folded in; the unfinished carried actions in flight from now. */
  private static void carriedTracked(RunState.Builder b, CarriedTracked c) {
    CarriedOver carried = b.carried;
    for (var outcome : c.outcomes().entrySet()) {
      carried = carried.recorded(outcome.getKey(), outcome.getValue());
    }
    b.carried = carried;
    for (CarriedAction a : carried.unfinished()) {
      b.inFlight.putIfAbsent(a.actionId(), ActionLease.carried(a, c.at()));
    }
  }

  private static ActionLease seen(ActionLease lease, ActionSeen a) {
    return lease.seen(a.executorId(), a.at(), a.step(), a.stepType(), a.stepTarget());
  }

  private static void lease(RunState.Builder b, String actionId, UnaryOperator<ActionLease> f) {
    b.inFlight.computeIfPresent(actionId, (id, l) -> f.apply(l));
  }
}
