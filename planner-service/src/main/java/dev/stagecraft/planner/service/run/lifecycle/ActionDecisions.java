package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.ApplySteps;
import dev.stagecraft.planner.apply.PlannedStep;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.ActionFinished;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.ActionHeartbeat;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.DispatchFailed;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.StateRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Tick;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.DispatchAction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of {@link RunDecider} that decides about a run's actions: which steps are dispatched,
 * what an executor's or the state service's report does, the action and dispatch leases
 * (docs/adr/0007), a carried-on run's dispatched actions (docs/adr/0035), and when an applying or
 * canceling run ends.
 *
 * <p>Pure like {@link RunDecider}: no I/O, no lock, no clock read.
 */
final class ActionDecisions {
  private final Duration actionLease;
  private final Duration dispatchLease;

  ActionDecisions(Duration actionLease, Duration dispatchLease) {
    this.actionLease = actionLease;
    this.dispatchLease = dispatchLease;
  }

  // --- applying --------------------------------------------------------------------------------

  void startApplying(DecisionDraft d, String approvedBy, Instant at) {
    RunState s = d.state;
    d.emit(
        new RunEvent.ApplyScheduled(ApplySteps.of(s.plan().steps(), s.settings().parallelism())));
    d.transition(
        RunStatus.APPLYING,
        (s.carried() != null ? "Carried on, applying the rest: " : "")
            + (approvedBy == null ? "" : "Approved by " + approvedBy + ". ")
            + s.plan().summary());
    dispatchReady(d, at);
  }

  /**
   * Dispatches every step that may start now (none once the run is canceling), then ends the run
   * when nothing is left to wait for.
   */
  void dispatchReady(DecisionDraft d, Instant at) {
    RunState s = d.state;
    if (s.steps() == null || s.finishingMessage() != null) {
      return;
    }
    if (s.cancelRequestedBy() == null) {
      List<DispatchAction> out = new ArrayList<>();
      for (PlannedStep step : s.steps().ready()) {
        long sequence = d.state.sequence() + 1;
        String actionId = s.runId() + "/" + step.address();
        d.emit(
            new RunEvent.ActionDispatched(actionId, step.address(), step.action(), sequence, at));
        out.add(new DispatchAction(actionId, step.address(), step.action(), sequence));
      }
      if (!out.isEmpty()) {
        d.effect(new RunEffect.Dispatch(out, s.lock().fencingToken()));
      }
    }
    RunState now = d.state;
    if (now.cancelRequestedBy() != null) {
      finishCancelIfDone(d);
    } else if (now.steps().isFinished() && !now.steps().hasFailures()) {
      d.emit(
          new RunEvent.ApplyFinishing(
              now.carried() == null
                  ? RunMessages.applied(now.plan())
                  : RunMessages.appliedCarried(now.plan(), now.carried())));
      d.effect(new RunEffect.RecordOutputs());
    } else if (now.steps().isFinished()) {
      d.finish(
          RunStatus.ERRORED,
          RunMessages.applyFailed(
              now.steps().withStatus(ApplySteps.Status.FAILED), now.cutShort()));
    }
  }

  Decision dispatchFailed(DecisionDraft d, DispatchFailed c) {
    RunState s = d.state;
    if (s.steps() == null || s.steps().status(c.address()) != ApplySteps.Status.DISPATCHED) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.emit(
        new RunEvent.ActionEnded(
            s.runId() + "/" + c.address(), c.address(), false, "failed: " + c.diagnostics()));
    dispatchReady(d, c.at());
    return d.decision();
  }

  Decision actionStarted(DecisionDraft d, RunCommand.ActionStarted c) {
    if (!d.state.inFlight().containsKey(c.actionId())) {
      return Decision.refused(Refusal.STALE);
    }
    d.emit(new RunEvent.ActionStarted(c.actionId(), c.executorId(), c.at()));
    return d.decision();
  }

  Decision actionHeartbeat(DecisionDraft d, ActionHeartbeat c) {
    ActionLease lease = d.state.inFlight().get(c.actionId());
    if (lease == null) {
      return Decision.refused(Refusal.STALE);
    }
    if (c.executorId() != null) {
      d.emit(
          new RunEvent.ActionSeen(
              c.actionId(), c.executorId(), c.step(), c.stepType(), c.stepTarget(), c.at()));
    } else if (lease.started()) {
      d.emit(new RunEvent.ActionSeen(c.actionId(), lease.executorId(), c.at()));
    } else if (lease.carried()) {
      // a carried action's executor is alive; its name comes with its next heartbeat
      d.emit(new RunEvent.ActionSeen(c.actionId(), ActionLease.UNNAMED, c.at()));
    }
    return d.decision();
  }

  Decision actionFinished(DecisionDraft d, ActionFinished c) {
    if (!d.state.inFlight().containsKey(c.actionId())) {
      return Decision.refused(Refusal.STALE);
    }
    d.emit(new RunEvent.ActionReported(c.actionId(), true));
    return d.decision();
  }

  Decision stateRecorded(DecisionDraft d, StateRecorded c) {
    RunState s = d.state;
    if (s.carried() != null && s.carried().actions().containsKey(c.actionId())) {
      if (s.carried().outcomes().containsKey(c.actionId())) {
        return d.decision(); // a redelivery
      }
      d.emit(
          new RunEvent.CarriedActionRecorded(
              c.actionId(), c.address(), c.outcome(), journalDetail(c)));
      if (d.state.cancelRequestedBy() != null) {
        finishCancelIfDone(d);
      } else {
        settleCarried(d);
      }
      return d.decision();
    }
    if (s.steps() == null) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    if (s.steps().status(c.address()) != ApplySteps.Status.DISPATCHED) {
      // a redelivery, or the outcome of an action a cancel stopped waiting for
      finishCancelIfDone(d);
      return d.decision();
    }
    boolean succeeded = "succeeded".equals(c.outcome()) && c.postconditionFailure() == null;
    d.emit(new RunEvent.ActionEnded(c.actionId(), c.address(), succeeded, journalDetail(c)));
    dispatchReady(d, c.at());
    return d.decision();
  }

  private static String journalDetail(StateRecorded c) {
    if ("succeeded".equals(c.outcome())) {
      return c.postconditionFailure() == null ? "complete" : "failed: " + c.postconditionFailure();
    }
    return "failed"
        + (c.error() == null ? "" : ": " + c.error())
        + ("rejected".equals(c.outcome()) ? " (write refused by the state service)" : "");
  }

  /**
   * Once every action a carried-on run dispatched has an outcome: ends it when one did not succeed
   * (or it was canceled), else opens it again to plan the rest.
   */
  void settleCarried(DecisionDraft d) {
    RunState s = d.state;
    if (s.status() != RunStatus.APPLYING || s.plan() != null || !s.carried().settled()) {
      return;
    }
    if (s.cancelRequestedBy() != null) {
      finishCancelIfDone(d);
      return;
    }
    List<String> failed = s.carried().notSucceeded();
    if (!failed.isEmpty()) {
      d.finish(RunStatus.ERRORED, RunMessages.carriedFailed(s.carried(), s.cutShort()));
      return;
    }
    d.effect(new RunEffect.OpenRun(s.lock().fencingToken()));
  }

  /** Ends a canceling run once none of its started actions waits for its outcome. */
  void finishCancelIfDone(DecisionDraft d) {
    RunState s = d.state;
    if (s.isTerminal() || s.cancelRequestedBy() == null || s.startedUnrecorded() > 0) {
      return;
    }
    d.finish(
        RunStatus.CANCELED,
        RunMessages.canceledWhileApplying(s.cancelRequestedBy(), s.steps(), s.cutShort()));
  }

  /**
   * Judges the leases of the run's dispatched actions at {@code c.now()}: a started action silent
   * for longer than the action lease is reported interrupted, one no executor took within the
   * dispatch lease fails without having run (docs/adr/0007).
   */
  void leases(DecisionDraft d, Tick c) {
    RunState s = d.state;
    if (s.inFlight().isEmpty()
        || (c.lastBrokerOutage() != null
            && c.lastBrokerOutage().plus(actionLease).isAfter(c.now()))) {
      // within a lease of a broker outage the silence may be the broker's: judge nothing
      return;
    }
    boolean abandonedAny = false;
    for (ActionLease lease : s.inFlight().values()) {
      String why = null;
      if (lease.started()
          && !lease.reported()
          && lease.lastSeen().plus(actionLease).isBefore(c.now())) {
        why = RunMessages.interrupted(lease, actionLease);
      } else if (lease.carried()
          && !lease.started()
          && !lease.reported()
          && lease.dispatchedAt().plus(dispatchLease).isBefore(c.now())) {
        why = RunMessages.unheardSinceRestart(lease, dispatchLease);
      } else if (!lease.started()
          && !lease.carried()
          && lease.dispatchedAt().plus(dispatchLease).isBefore(c.now())) {
        d.emit(
            new RunEvent.ActionAbandoned(
                lease.actionId(), lease.address(), RunMessages.notStarted(dispatchLease)));
        abandonedAny = true;
      }
      if (why != null) {
        long sequence = d.state.sequence() + 1;
        d.emit(new RunEvent.ActionInterrupted(lease.actionId(), lease.address(), why, sequence));
        String executor =
            lease.executorId() == null
                ? "(none reported since the run was carried on)"
                : lease.executorId();
        d.effect(
            new RunEffect.ReportInterrupted(
                lease.actionId(), lease.address(), executor, why, sequence));
      }
    }
    if (abandonedAny) {
      dispatchReady(d, c.now());
    }
    finishCancelIfDone(d);
  }
}
