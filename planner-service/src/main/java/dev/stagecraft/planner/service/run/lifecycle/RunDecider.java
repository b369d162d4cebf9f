package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.service.run.RestartRecovery;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.ActionFinished;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.ActionHeartbeat;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Admitted;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Approve;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.CancelRequested;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.CarriedOutcomesRead;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.CarryOn;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Discard;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.DispatchFailed;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.EffectFailed;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockGranted;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockLost;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockQueued;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.OpenFailed;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Opened;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.OutputsFailed;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.OutputsRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.PlanFailed;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Planned;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Resume;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Start;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.StateRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Superseded;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Tick;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.DispatchAction;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The run lifecycle (docs/runs.md "State machine") as decide / apply: {@link #decide} takes a
 * {@link RunCommand} and the run's {@link RunState} and answers the {@link RunEvent}s that happened
 * and the {@link RunEffect}s the driver must carry out, or a {@link Refusal}; {@link #apply} folds
 * one event into the state. Nothing else changes a run's state.
 *
 * <p>Concurrency model: none. The decider is a pure function of its arguments and its settings: it
 * does no I/O, takes no lock and reads no clock (time comes in the commands). One driver per run
 * calls it from one thread at a time, in the order the run's commands arrived.
 *
 * <p>Terminal statuses never move: every command on an ended run is refused {@link
 * Refusal#ALREADY_ENDED} without events, and {@link #apply} ignores events on an ended run.
 */
public final class RunDecider {

  /** Added to a restarted run's last recorded sequence (docs/adr/0029). */
  public static final long RESUME_SEQUENCE_GAP = 1_000_000;

  private static final Set<RunStatus> RESUMABLE =
      EnumSet.of(RunStatus.PENDING, RunStatus.QUEUED, RunStatus.PLANNING, RunStatus.PLANNED);

  private final Duration approvalTimeout;
  private final Duration actionLease;
  private final Duration dispatchLease;

  /**
   * @param approvalTimeout how long a plan waits for approval before the run is discarded
   * @param actionLease a started action silent for longer is reported {@code interrupted}
   * @param dispatchLease an action no executor started within it fails without having run
   */
  public RunDecider(Duration approvalTimeout, Duration actionLease, Duration dispatchLease) {
    this.approvalTimeout = approvalTimeout;
    this.actionLease = actionLease;
    this.dispatchLease = dispatchLease;
  }

  /** When the plan of a run waiting for approval stops being approvable. */
  public Optional<Instant> approvalDeadline(RunState state) {
    return state.awaitsApproval()
        ? Optional.of(state.plannedAt().plus(approvalTimeout))
        : Optional.empty();
  }

  /** Decides what {@code command} does to the run in {@code state}. */
  public Decision decide(RunCommand command, RunState state) {
    if (state.isTerminal()) {
      return endedRefusal(command);
    }
    Draft d = new Draft(state);
    return switch (command) {
      case Start c -> start(d, c);
      case Resume c -> resume(d, c);
      case CarryOn c -> carryOn(d, c);
      case Admitted c -> admitted(d);
      case LockQueued c -> lockQueued(d, c);
      case LockGranted c -> lockGranted(d, c);
      case Superseded c -> superseded(d, c);
      case LockLost c -> lockLost(d, c);
      case Opened c -> opened(d, c);
      case OpenFailed c -> failRun(d, RunMessages.runFailed(c.error()));
      case CarriedOutcomesRead c -> carriedOutcomesRead(d, c);
      case Planned c -> planned(d, c);
      case PlanFailed c -> failRun(d, c.diagnostics());
      case Approve c -> approve(d, c);
      case Discard c -> discard(d, c);
      case CancelRequested c -> cancel(d, c);
      case DispatchFailed c -> dispatchFailed(d, c);
      case RunCommand.ActionStarted c -> actionStarted(d, c);
      case ActionHeartbeat c -> actionHeartbeat(d, c);
      case ActionFinished c -> actionFinished(d, c);
      case StateRecorded c -> stateRecorded(d, c);
      case OutputsRecorded c -> outputsRecorded(d, c);
      case OutputsFailed c -> outputsFailed(d, c.error());
      case Tick c -> tick(d, c);
      case EffectFailed c -> effectFailed(d, c);
    };
  }

  /**
   * An ended run refuses everything; a lock granted or a run opened after it ended (canceled while
   * the answer was on its way) is given back at once.
   */
  private static Decision endedRefusal(RunCommand command) {
    Optional<Refusal> ended = Optional.of(Refusal.ALREADY_ENDED);
    return switch (command) {
      case LockGranted g ->
          new Decision(List.of(), List.of(new RunEffect.ReleaseLock(g.lockId())), ended);
      case Opened o -> new Decision(List.of(), List.of(new RunEffect.RevokeCredential()), ended);
      default -> Decision.refused(Refusal.ALREADY_ENDED);
    };
  }

  // --- starting -------------------------------------------------------------------------------

  private Decision start(Draft d, Start c) {
    if (!d.state.isNew()) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    transition(d, RunStatus.PENDING, c.pendingMessage());
    d.effect(new RunEffect.RecordRequest());
    d.effect(new RunEffect.AwaitAdmission());
    return d.decision();
  }

  private Decision resume(Draft d, Resume c) {
    if (!d.state.isNew()) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    if (!RESUMABLE.contains(c.recordedStatus())) {
      return Decision.refused(Refusal.NOT_RESUMABLE);
    }
    d.emit(
        new RunEvent.Restarted(
            c.lastSequence() + RESUME_SEQUENCE_GAP, c.planDigest(), c.plannedAt(), null));
    transition(d, RunStatus.PENDING, c.message());
    d.effect(new RunEffect.AwaitAdmission());
    return d.decision();
  }

  private Decision carryOn(Draft d, CarryOn c) {
    if (!d.state.isNew()) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    boolean bound = d.state.settings().approvalBound();
    CarriedOver carried =
        CarriedOver.of(c.dispatched(), bound, bound ? c.approvedPlanDigest() : null);
    d.emit(new RunEvent.Restarted(c.lastSequence() + RESUME_SEQUENCE_GAP, null, null, carried));
    transition(d, RunStatus.PENDING, c.message());
    d.effect(new RunEffect.AwaitAdmission());
    return d.decision();
  }

  private Decision admitted(Draft d) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.effect(new RunEffect.RequestLock(false));
    return d.decision();
  }

  // --- the workspace lock ----------------------------------------------------------------------

  private static boolean waitsForLock(RunState s) {
    return s.lock() == null && (s.status() == RunStatus.PENDING || s.status() == RunStatus.QUEUED);
  }

  private Decision lockQueued(Draft d, LockQueued c) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    if (c.position() != d.state.queuePosition()) {
      d.emit(new RunEvent.QueuePositionChanged(c.position()));
      transition(d, RunStatus.QUEUED, RunMessages.queued(c.position()));
    }
    d.effect(new RunEffect.RequestLock(true));
    return d.decision();
  }

  private Decision lockGranted(Draft d, LockGranted c) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.emit(new RunEvent.LockAcquired(c.lockId(), c.fencingToken()));
    d.effect(new RunEffect.StartHeartbeat(c.lockId(), d.state.restarted()));
    d.effect(
        d.state.carried() != null
            ? new RunEffect.ReadCarriedOutcomes()
            : new RunEffect.OpenRun(c.fencingToken()));
    return d.decision();
  }

  private Decision superseded(Draft d, Superseded c) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    finish(d, RunStatus.CANCELED, RunMessages.superseded(c.byRun(), c.coalescingKey()));
    return d.decision();
  }

  private Decision lockLost(Draft d, LockLost c) {
    RunState.Lock lock = d.state.lock();
    boolean ours =
        lock != null
            && switch (c.cause()) {
              case LEASE_EXPIRED, HEARTBEAT_REFUSED -> lock.lockId().equals(c.lockId());
              case FORCE_UNLOCKED -> lock.fencingToken() == c.fencingToken();
            };
    if (!ours) {
      return Decision.refused(Refusal.STALE);
    }
    finish(d, RunStatus.ERRORED, c.message());
    return d.decision();
  }

  // --- opening and planning --------------------------------------------------------------------

  private Decision opened(Draft d, Opened c) {
    RunState s = d.state;
    boolean carriedSettled =
        s.carried() != null && s.status() == RunStatus.APPLYING && s.carried().settled();
    boolean fresh =
        s.carried() == null && (s.status() == RunStatus.PENDING || s.status() == RunStatus.QUEUED);
    if (s.lock() == null || s.plan() != null || !(fresh || carriedSettled)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.emit(new RunEvent.RunOpened(c.credential()));
    if (fresh) {
      transition(d, RunStatus.PLANNING, null);
    }
    d.effect(new RunEffect.Plan());
    return d.decision();
  }

  private Decision carriedOutcomesRead(Draft d, CarriedOutcomesRead c) {
    RunState s = d.state;
    if (s.carried() == null || s.lock() == null || !waitsForLockStatus(s)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.emit(new RunEvent.CarriedTracked(c.outcomes(), c.at()));
    transition(d, RunStatus.APPLYING, c.applyingMessage());
    settleCarried(d);
    return d.decision();
  }

  private static boolean waitsForLockStatus(RunState s) {
    return s.status() == RunStatus.PENDING || s.status() == RunStatus.QUEUED;
  }

  /**
   * Once every action a carried-on run dispatched has an outcome: ends it when one did not succeed
   * (or it was canceled), else opens it again to plan the rest.
   */
  private void settleCarried(Draft d) {
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
      finish(d, RunStatus.ERRORED, RunMessages.carriedFailed(failed, s.cutShort()));
      return;
    }
    d.effect(new RunEffect.OpenRun(s.lock().fencingToken()));
  }

  private Decision planned(Draft d, Planned c) {
    RunState s = d.state;
    boolean carried = s.carried() != null;
    boolean expected =
        s.credential() != null
            && s.plan() == null
            && (carried ? s.status() == RunStatus.APPLYING : s.status() == RunStatus.PLANNING);
    if (!expected) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    return carried ? plannedRest(d, c) : plannedFirst(d, c);
  }

  private Decision plannedFirst(Draft d, Planned c) {
    RunSettings settings = d.state.settings();
    PlanInfo plan = c.plan();
    if (settings.expectedSerial() != null && settings.expectedSerial() != c.priorSerial()) {
      return failRun(d, RunMessages.staleSerial(settings.expectedSerial(), c.priorSerial()));
    }
    if (settings.expectedDigest() != null && !settings.expectedDigest().equals(plan.digest())) {
      return failRun(d, RunMessages.savedPlanMismatch());
    }
    Instant firstPlannedAt = d.state.plannedAt();
    d.emit(new RunEvent.PlanMade(plan, firstPlannedAt != null ? firstPlannedAt : c.at()));
    String shown = d.state.resumedPlanDigest();
    if (shown != null && !shown.equals(plan.digest())) {
      return failRun(d, RestartRecovery.planMovedMessage(shown, plan.digest()));
    }
    transition(d, RunStatus.PLANNED, plan.text());
    if (!plan.hasChanges()) {
      finish(d, RunStatus.PLANNED_AND_FINISHED, "No changes.");
    } else if (d.state.awaitsApproval()) {
      // a resumed run's timeout counts from its first plan: it may have passed already
      if (!c.at().isBefore(approvalDeadline(d.state).orElseThrow())) {
        finish(d, RunStatus.DISCARDED, RunMessages.approvalExpired(approvalTimeout));
      }
    } else {
      startApplying(d, null, c.at());
    }
    return d.decision();
  }

  /** The plan of what remains for a carried-on run (docs/adr/0035, 0051). */
  private Decision plannedRest(Draft d, Planned c) {
    CarriedOver carried = d.state.carried();
    PlanInfo plan = c.plan();
    List<String> repeated =
        carried.alreadyDispatched(plan.steps().stream().map(PlannedStep::address).toList());
    if (!repeated.isEmpty()) {
      return failRun(d, RunMessages.wouldRepeat(repeated));
    }
    d.emit(new RunEvent.PlanMade(plan, c.at()));
    if (!plan.hasChanges()) {
      d.emit(
          new RunEvent.ApplyFinishing(
              RunMessages.appliedCarriedNothingLeft(carried.succeededCount())));
      d.effect(new RunEffect.RecordOutputs());
      return d.decision();
    }
    if (carried.approvalBound() && c.restNotApproved() != null) {
      return failRun(d, RunMessages.restNotApproved(plan.summary(), c.restNotApproved()));
    }
    startApplying(d, null, c.at());
    return d.decision();
  }

  // --- approval --------------------------------------------------------------------------------

  private Decision approve(Draft d, Approve c) {
    if (!d.state.awaitsApproval()) {
      return Decision.refused(Refusal.NOT_AWAITING);
    }
    if (!d.state.plan().digest().equals(c.planDigest())) {
      return Decision.refused(Refusal.WRONG_DIGEST);
    }
    if (c.at().isAfter(approvalDeadline(d.state).orElseThrow())) {
      finish(d, RunStatus.DISCARDED, RunMessages.approvalExpired(approvalTimeout));
      return d.decision(Refusal.EXPIRED);
    }
    d.emit(new RunEvent.ApprovalRecorded(c.by(), c.at()));
    startApplying(d, c.by(), c.at());
    return d.decision();
  }

  private Decision discard(Draft d, Discard c) {
    if (!d.state.awaitsApproval()) {
      return Decision.refused(Refusal.NOT_AWAITING);
    }
    finish(d, RunStatus.DISCARDED, RunMessages.discarded(c.by()));
    return d.decision();
  }

  // --- applying --------------------------------------------------------------------------------

  private void startApplying(Draft d, String approvedBy, Instant at) {
    RunState s = d.state;
    d.emit(
        new RunEvent.ApplyScheduled(ApplySteps.of(s.plan().steps(), s.settings().parallelism())));
    transition(
        d,
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
  private void dispatchReady(Draft d, Instant at) {
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
                  : RunMessages.applied(now.plan())
                      + " (with "
                      + now.carried().succeededCount()
                      + " action(s) applied before its planner instance stopped)"));
      d.effect(new RunEffect.RecordOutputs());
    } else if (now.steps().isFinished()) {
      finish(
          d,
          RunStatus.ERRORED,
          RunMessages.applyFailed(
              now.steps().withStatus(ApplySteps.Status.FAILED), now.cutShort()));
    }
  }

  private Decision dispatchFailed(Draft d, DispatchFailed c) {
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

  private Decision actionStarted(Draft d, RunCommand.ActionStarted c) {
    if (!d.state.inFlight().containsKey(c.actionId())) {
      return Decision.refused(Refusal.STALE);
    }
    d.emit(new RunEvent.ActionStarted(c.actionId(), c.executorId(), c.at()));
    return d.decision();
  }

  private Decision actionHeartbeat(Draft d, ActionHeartbeat c) {
    ActionLease lease = d.state.inFlight().get(c.actionId());
    if (lease == null) {
      return Decision.refused(Refusal.STALE);
    }
    if (c.executorId() != null) {
      d.emit(new RunEvent.ActionSeen(c.actionId(), c.executorId(), c.at()));
    } else if (lease.started()) {
      d.emit(new RunEvent.ActionSeen(c.actionId(), lease.executorId(), c.at()));
    } else if (lease.carried()) {
      // a carried action's executor is alive; its name comes with its next heartbeat
      d.emit(new RunEvent.ActionSeen(c.actionId(), ActionLease.UNNAMED, c.at()));
    }
    return d.decision();
  }

  private Decision actionFinished(Draft d, ActionFinished c) {
    if (!d.state.inFlight().containsKey(c.actionId())) {
      return Decision.refused(Refusal.STALE);
    }
    d.emit(new RunEvent.ActionReported(c.actionId(), true));
    return d.decision();
  }

  private Decision stateRecorded(Draft d, StateRecorded c) {
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

  private Decision outputsRecorded(Draft d, OutputsRecorded c) {
    String message = d.state.finishingMessage();
    if (message == null) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    finish(d, RunStatus.APPLIED, message + (c.warnings() == null ? "" : c.warnings()));
    return d.decision();
  }

  private Decision outputsFailed(Draft d, String error) {
    String message = d.state.finishingMessage();
    if (message == null) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    finish(d, RunStatus.ERRORED, RunMessages.outputsNotRecorded(message, error));
    return d.decision();
  }

  // --- cancel ----------------------------------------------------------------------------------

  private Decision cancel(Draft d, CancelRequested c) {
    RunState s = d.state;
    if (s.cancelRequestedBy() != null || s.finishingMessage() != null) {
      return d.decision(); // canceling already, or everything applied: as it is
    }
    // a run carried on after a restart may have actions running before it is applying again
    boolean applying = s.status() == RunStatus.APPLYING || s.carried() != null;
    if (!applying) {
      finish(d, RunStatus.CANCELED, RunMessages.canceledBeforeApplying(c.by()));
      return d.decision();
    }
    long sequence = s.sequence() + 1;
    d.emit(new RunEvent.CancelRecorded(c.by(), sequence));
    for (ActionLease lease : s.inFlight().values()) {
      if (!lease.started() && !lease.carried()) {
        d.emit(new RunEvent.ActionDropped(lease.actionId(), lease.address()));
      }
    }
    d.effect(new RunEffect.BroadcastCancel("canceled by " + c.by(), sequence));
    finishCancelIfDone(d);
    return d.decision();
  }

  /** Ends a canceling run once none of its started actions waits for its outcome. */
  private void finishCancelIfDone(Draft d) {
    RunState s = d.state;
    if (s.isTerminal() || s.cancelRequestedBy() == null || s.startedUnrecorded() > 0) {
      return;
    }
    finish(
        d,
        RunStatus.CANCELED,
        RunMessages.canceledWhileApplying(s.cancelRequestedBy(), s.steps(), s.cutShort()));
  }

  // --- time ------------------------------------------------------------------------------------

  private Decision tick(Draft d, Tick c) {
    Optional<Instant> deadline = approvalDeadline(d.state);
    if (deadline.isPresent() && !c.now().isBefore(deadline.get())) {
      finish(d, RunStatus.DISCARDED, RunMessages.approvalExpired(approvalTimeout));
      return d.decision();
    }
    RunState s = d.state;
    if (s.inFlight().isEmpty()
        || (c.lastBrokerOutage() != null
            && c.lastBrokerOutage().plus(actionLease).isAfter(c.now()))) {
      // within a lease of a broker outage the silence may be the broker's: judge nothing
      return d.decision();
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
    return d.decision();
  }

  // --- failures of the driver ------------------------------------------------------------------

  private Decision effectFailed(Draft d, EffectFailed c) {
    return switch (c.effect()) {
      case RunEffect.ReportInterrupted r -> {
        // the state service never saw it: report it again at the next tick
        d.emit(new RunEvent.ActionReported(r.actionId(), false));
        yield d.decision();
      }
      case RunEffect.RecordOutputs r -> outputsFailed(d, c.error());
      case RunEffect.AwaitAdmission r -> failRun(d, RunMessages.runFailed(c.error()));
      case RunEffect.RequestLock r -> failRun(d, RunMessages.runFailed(c.error()));
      case RunEffect.OpenRun r -> failRun(d, RunMessages.runFailed(c.error()));
      case RunEffect.ReadCarriedOutcomes r -> failRun(d, RunMessages.runFailed(c.error()));
      case RunEffect.Plan r -> failRun(d, RunMessages.runFailed(c.error()));
      case RunEffect.Dispatch r -> failRun(d, RunMessages.runFailed(c.error()));
      // logged by the driver; the lease or the next holder's fencing token takes care of the rest
      default -> d.decision();
    };
  }

  // --- transitions -----------------------------------------------------------------------------

  private Decision failRun(Draft d, String message) {
    finish(d, RunStatus.ERRORED, message);
    return d.decision();
  }

  /**
   * Ends the run in {@code status}: its credential revoked and its lock released before the
   * terminal transition is announced, then the driver closes the run.
   */
  private void finish(Draft d, RunStatus status, String message) {
    RunState s = d.state;
    if (s.isTerminal()) {
      return;
    }
    if (s.credential() != null) {
      d.emit(new RunEvent.CredentialRevoked());
      d.effect(new RunEffect.RevokeCredential());
    }
    if (s.lock() != null) {
      d.emit(new RunEvent.LockReleased(s.lock().lockId()));
      d.effect(new RunEffect.StopHeartbeat());
      d.effect(new RunEffect.ReleaseLock(s.lock().lockId()));
    }
    transition(d, status, message);
    d.effect(new RunEffect.Close());
  }

  private void transition(Draft d, RunStatus to, String message) {
    Transitioned t = new Transitioned(d.state.status(), to, message, d.state.sequence() + 1);
    d.emit(t);
    d.effect(new RunEffect.RecordTransition(t));
    Optional<Instant> deadline = approvalDeadline(d.state);
    d.effect(
        new RunEffect.PublishTransition(
            t, deadline.isPresent() ? d.state.shownDigest() : null, deadline.orElse(null)));
  }

  // --- apply -----------------------------------------------------------------------------------

  /** Folds {@code event} into {@code state}. An ended run's state never changes. */
  public static RunState apply(RunState state, RunEvent event) {
    return state.isTerminal() ? state : RunEvolution.apply(state, event);
  }

  /** The events and effects of one decision, applied as they are emitted. */
  private static final class Draft {
    RunState state;
    final List<RunEvent> events = new ArrayList<>();
    final List<RunEffect> effects = new ArrayList<>();

    Draft(RunState state) {
      this.state = state;
    }

    void emit(RunEvent event) {
      events.add(event);
      state = apply(state, event);
    }

    void effect(RunEffect effect) {
      effects.add(effect);
    }

    Decision decision() {
      return new Decision(events, effects, Optional.empty());
    }

    Decision decision(Refusal refusal) {
      return new Decision(events, effects, Optional.of(refusal));
    }
  }
}
