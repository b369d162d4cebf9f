package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.PlannedStep;
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
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import java.time.Duration;
import java.time.Instant;
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
  private final ActionDecisions actions;

  /**
   * @param approvalTimeout how long a plan waits for approval before the run is discarded
   * @param actionLease a started action silent for longer is reported {@code interrupted}
   * @param dispatchLease an action no executor started within it fails without having run
   */
  public RunDecider(Duration approvalTimeout, Duration actionLease, Duration dispatchLease) {
    this.approvalTimeout = approvalTimeout;
    this.actions = new ActionDecisions(actionLease, dispatchLease);
  }

  /** When the plan of a run waiting for approval stops being approvable. */
  public Optional<Instant> approvalDeadline(RunState state) {
    return approvalDeadline(state, approvalTimeout);
  }

  static Optional<Instant> approvalDeadline(RunState state, Duration approvalTimeout) {
    return state.awaitsApproval()
        ? Optional.of(state.plannedAt().plus(approvalTimeout))
        : Optional.empty();
  }

  /** Decides what {@code command} does to the run in {@code state}. */
  public Decision decide(RunCommand command, RunState state) {
    if (state.isTerminal()) {
      return endedRefusal(command);
    }
    DecisionDraft d = new DecisionDraft(state, approvalTimeout);
    return switch (command) {
      case Start c -> start(d, c);
      case Resume c -> resume(d, c);
      case CarryOn c -> carryOn(d, c);
      case Admitted c -> admitted(d);
      case RunCommand.AdmissionQueued c -> admissionQueued(d, c);
      case LockQueued c -> lockQueued(d, c);
      case LockGranted c -> lockGranted(d, c);
      case Superseded c -> superseded(d, c);
      case LockLost c -> lockLost(d, c);
      case Opened c -> opened(d, c);
      case OpenFailed c -> d.failRun(RunMessages.runFailed(c.error()));
      case CarriedOutcomesRead c -> carriedOutcomesRead(d, c);
      case Planned c -> planned(d, c);
      case PlanFailed c -> d.failRun(c.diagnostics());
      case Approve c -> approve(d, c);
      case Discard c -> discard(d, c);
      case CancelRequested c -> cancel(d, c);
      case DispatchFailed c -> actions.dispatchFailed(d, c);
      case RunCommand.ActionStarted c -> actions.actionStarted(d, c);
      case ActionHeartbeat c -> actions.actionHeartbeat(d, c);
      case ActionFinished c -> actions.actionFinished(d, c);
      case StateRecorded c -> actions.stateRecorded(d, c);
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
      case Opened o when o.credential() != null ->
          new Decision(List.of(), List.of(new RunEffect.RevokeCredential()), ended);
      default -> Decision.refused(Refusal.ALREADY_ENDED);
    };
  }

  // --- starting -------------------------------------------------------------------------------

  private Decision start(DecisionDraft d, Start c) {
    if (!d.state.isNew()) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.transition(RunStatus.PENDING, c.pendingMessage());
    d.effect(new RunEffect.RecordRequest());
    d.effect(new RunEffect.AwaitAdmission());
    return d.decision();
  }

  private Decision resume(DecisionDraft d, Resume c) {
    if (!d.state.isNew()) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    if (!RESUMABLE.contains(c.recordedStatus())) {
      return Decision.refused(Refusal.NOT_RESUMABLE);
    }
    d.emit(
        new RunEvent.Restarted(
            c.lastSequence() + RESUME_SEQUENCE_GAP, c.planDigest(), c.plannedAt(), null));
    d.transition(RunStatus.PENDING, c.message());
    d.effect(new RunEffect.AwaitAdmission());
    return d.decision();
  }

  private Decision carryOn(DecisionDraft d, CarryOn c) {
    if (!d.state.isNew()) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    boolean bound = d.state.settings().approvalBound();
    CarriedOver carried =
        CarriedOver.of(
            c.dispatched(), bound, bound ? c.approvedPlanDigest() : null, c.credential());
    d.emit(new RunEvent.Restarted(c.lastSequence() + RESUME_SEQUENCE_GAP, null, null, carried));
    d.transition(RunStatus.PENDING, c.message());
    d.effect(new RunEffect.AwaitAdmission());
    return d.decision();
  }

  private Decision admitted(DecisionDraft d) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.effect(new RunEffect.RequestLock(false));
    return d.decision();
  }

  private Decision admissionQueued(DecisionDraft d, RunCommand.AdmissionQueued c) {
    if (d.state.status() != RunStatus.PENDING || d.state.lock() != null) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.transition(RunStatus.QUEUED, c.reason());
    return d.decision();
  }

  // --- the workspace lock ----------------------------------------------------------------------

  private static boolean waitsForLock(RunState s) {
    return s.lock() == null && (s.status() == RunStatus.PENDING || s.status() == RunStatus.QUEUED);
  }

  private Decision lockQueued(DecisionDraft d, LockQueued c) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    if (c.position() != d.state.queuePosition()) {
      d.emit(new RunEvent.QueuePositionChanged(c.position()));
      d.transition(RunStatus.QUEUED, RunMessages.queued(c.position()));
    }
    d.effect(new RunEffect.RequestLock(true));
    return d.decision();
  }

  private Decision lockGranted(DecisionDraft d, LockGranted c) {
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

  private Decision superseded(DecisionDraft d, Superseded c) {
    if (!waitsForLock(d.state)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.finish(RunStatus.CANCELED, RunMessages.superseded(c.byRun(), c.coalescingKey()));
    return d.decision();
  }

  private Decision lockLost(DecisionDraft d, LockLost c) {
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
    d.finish(RunStatus.ERRORED, c.message());
    return d.decision();
  }

  // --- opening and planning --------------------------------------------------------------------

  private Decision opened(DecisionDraft d, Opened c) {
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
      d.transition(RunStatus.PLANNING, null);
    }
    d.effect(new RunEffect.Plan());
    return d.decision();
  }

  private Decision carriedOutcomesRead(DecisionDraft d, CarriedOutcomesRead c) {
    RunState s = d.state;
    if (s.carried() == null || s.lock() == null || !waitsForLockStatus(s)) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    if (s.carried().credential() != null) {
      // the credential its dispatches carry: the proofs of its interrupted reports need it
      d.emit(new RunEvent.CredentialTakenBack(s.carried().credential()));
    }
    d.emit(new RunEvent.CarriedTracked(c.outcomes(), c.at()));
    d.transition(RunStatus.APPLYING, RunMessages.carriedApplying(d.state.carried()));
    actions.settleCarried(d);
    return d.decision();
  }

  private static boolean waitsForLockStatus(RunState s) {
    return s.status() == RunStatus.PENDING || s.status() == RunStatus.QUEUED;
  }

  private Decision planned(DecisionDraft d, Planned c) {
    RunState s = d.state;
    boolean carried = s.carried() != null;
    boolean expected =
        s.opened()
            && s.plan() == null
            && (carried ? s.status() == RunStatus.APPLYING : s.status() == RunStatus.PLANNING);
    if (!expected) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    return carried ? plannedRest(d, c) : plannedFirst(d, c);
  }

  private Decision plannedFirst(DecisionDraft d, Planned c) {
    RunSettings settings = d.state.settings();
    PlanInfo plan = c.plan();
    if (settings.expectedSerial() != null && settings.expectedSerial() != c.priorSerial()) {
      return d.failRun(RunMessages.staleSerial(settings.expectedSerial(), c.priorSerial()));
    }
    if (settings.expectedDigest() != null && !settings.expectedDigest().equals(plan.digest())) {
      return d.failRun(RunMessages.savedPlanMismatch());
    }
    Instant firstPlannedAt = d.state.plannedAt();
    d.emit(new RunEvent.PlanMade(plan, firstPlannedAt != null ? firstPlannedAt : c.at()));
    String shown = d.state.resumedPlanDigest();
    if (shown != null && !shown.equals(plan.digest())) {
      return d.failRun(RestartRecovery.planMovedMessage(shown, plan.digest()));
    }
    d.transition(RunStatus.PLANNED, plan.text());
    if (!plan.hasChanges()) {
      d.finish(RunStatus.PLANNED_AND_FINISHED, "No changes.");
    } else if (d.state.awaitsApproval()) {
      // a resumed run's timeout counts from its first plan: it may have passed already
      if (!c.at().isBefore(approvalDeadline(d.state).orElseThrow())) {
        d.finish(RunStatus.DISCARDED, RunMessages.approvalExpired(approvalTimeout));
      }
    } else {
      actions.startApplying(d, null, c.at());
    }
    return d.decision();
  }

  /** The plan of what remains for a carried-on run (docs/adr/0035, 0051). */
  private Decision plannedRest(DecisionDraft d, Planned c) {
    CarriedOver carried = d.state.carried();
    PlanInfo plan = c.plan();
    List<String> repeated =
        carried.alreadyDispatched(plan.steps().stream().map(PlannedStep::address).toList());
    if (!repeated.isEmpty()) {
      return d.failRun(RunMessages.wouldRepeat(repeated));
    }
    d.emit(new RunEvent.PlanMade(plan, c.at()));
    if (!plan.hasChanges()) {
      d.emit(new RunEvent.ApplyFinishing(RunMessages.appliedCarriedNothingLeft(d.state.carried())));
      d.effect(new RunEffect.RecordOutputs());
      return d.decision();
    }
    if (carried.approvalBound() && c.restNotApproved() != null) {
      return d.failRun(RunMessages.restNotApproved(plan.summary(), c.restNotApproved()));
    }
    actions.startApplying(d, null, c.at());
    return d.decision();
  }

  // --- approval --------------------------------------------------------------------------------

  private Decision approve(DecisionDraft d, Approve c) {
    if (!d.state.awaitsApproval()) {
      return Decision.refused(Refusal.NOT_AWAITING);
    }
    if (!d.state.plan().digest().equals(c.planDigest())) {
      return Decision.refused(Refusal.WRONG_DIGEST);
    }
    if (c.at().isAfter(approvalDeadline(d.state).orElseThrow())) {
      d.finish(RunStatus.DISCARDED, RunMessages.approvalExpired(approvalTimeout));
      return d.decision(Refusal.EXPIRED);
    }
    d.emit(new RunEvent.ApprovalRecorded(c.by(), c.at()));
    actions.startApplying(d, c.by(), c.at());
    return d.decision();
  }

  private Decision discard(DecisionDraft d, Discard c) {
    if (!d.state.awaitsApproval()) {
      return Decision.refused(Refusal.NOT_AWAITING);
    }
    d.finish(RunStatus.DISCARDED, RunMessages.discarded(c.by()));
    return d.decision();
  }

  private Decision outputsRecorded(DecisionDraft d, OutputsRecorded c) {
    String message = d.state.finishingMessage();
    if (message == null) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.finish(RunStatus.APPLIED, message + (c.warnings() == null ? "" : c.warnings()));
    return d.decision();
  }

  private Decision outputsFailed(DecisionDraft d, String error) {
    String message = d.state.finishingMessage();
    if (message == null) {
      return Decision.refused(Refusal.NOT_EXPECTED);
    }
    d.finish(RunStatus.ERRORED, RunMessages.outputsNotRecorded(message, error));
    return d.decision();
  }

  // --- cancel ----------------------------------------------------------------------------------

  private Decision cancel(DecisionDraft d, CancelRequested c) {
    RunState s = d.state;
    if (s.cancelRequestedBy() != null || s.finishingMessage() != null) {
      return d.decision(); // canceling already, or everything applied: as it is
    }
    // a run carried on after a restart may have actions running before it is applying again
    boolean applying = s.status() == RunStatus.APPLYING || s.carried() != null;
    if (!applying) {
      d.finish(RunStatus.CANCELED, RunMessages.canceledBeforeApplying(c.by()));
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
    actions.finishCancelIfDone(d);
    return d.decision();
  }

  // --- time ------------------------------------------------------------------------------------

  private Decision tick(DecisionDraft d, Tick c) {
    Optional<Instant> deadline = approvalDeadline(d.state);
    if (deadline.isPresent() && !c.now().isBefore(deadline.get())) {
      d.finish(RunStatus.DISCARDED, RunMessages.approvalExpired(approvalTimeout));
      return d.decision();
    }
    actions.leases(d, c);
    return d.decision();
  }

  // --- failures of the driver ------------------------------------------------------------------

  private Decision effectFailed(DecisionDraft d, EffectFailed c) {
    return switch (c.effect()) {
      case RunEffect.ReportInterrupted r -> {
        // the state service never saw it: report it again at the next tick
        d.emit(new RunEvent.ActionReported(r.actionId(), false));
        yield d.decision();
      }
      case RunEffect.RecordOutputs r -> outputsFailed(d, c.error());
      case RunEffect.AwaitAdmission r -> d.failRun(RunMessages.runFailed(c.error()));
      case RunEffect.RequestLock r -> d.failRun(RunMessages.runFailed(c.error()));
      case RunEffect.OpenRun r -> d.failRun(RunMessages.runFailed(c.error()));
      case RunEffect.ReadCarriedOutcomes r -> d.failRun(RunMessages.runFailed(c.error()));
      case RunEffect.Plan r -> d.failRun(RunMessages.runFailed(c.error()));
      case RunEffect.Dispatch r -> d.failRun(RunMessages.runFailed(c.error()));
      // logged by the driver; the lease or the next holder's fencing token takes care of the rest
      default -> d.decision();
    };
  }

  // --- apply -----------------------------------------------------------------------------------

  /** Folds {@code event} into {@code state}. An ended run's state never changes. */
  public static RunState apply(RunState state, RunEvent event) {
    return state.isTerminal() ? state : RunEvolution.apply(state, event);
  }
}
