package dev.stagecraft.planner.service.run.lifecycle;

import static dev.stagecraft.planner.service.run.lifecycle.RunScenario.RUN;
import static dev.stagecraft.planner.service.run.lifecycle.RunScenario.given;
import static dev.stagecraft.planner.service.run.lifecycle.RunScenario.history;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stagecraft.planner.apply.ApplySteps;
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
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockLoss;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockLost;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockQueued;
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
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.AwaitAdmission;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.Close;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.Dispatch;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.DispatchAction;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.OpenRun;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.Plan;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.PublishTransition;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.ReadCarriedOutcomes;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.RecordOutputs;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.RecordRequest;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.RecordTransition;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.ReleaseLock;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.RequestLock;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.RevokeCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.StartHeartbeat;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.StopHeartbeat;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ActionDispatched;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ApplyScheduled;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.ApprovalRecorded;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.CredentialRevoked;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.LockAcquired;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.LockReleased;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.PlanMade;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.QueuePositionChanged;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Restarted;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.RunOpened;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of docs/runs.md "State machine" and the refusals of "Approval", as given events / when
 * command / then events (and effects). Test names name the row.
 */
class RunDeciderTest {
  static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  static final Duration APPROVAL_TIMEOUT = Duration.ofHours(1);
  static final Duration ACTION_LEASE = Duration.ofSeconds(15);
  static final Duration DISPATCH_LEASE = Duration.ofMinutes(10);
  static final RunCredential CREDENTIAL = new RunCredential("secret-credential");
  static final String LOCK = "lock-1";
  static final long TOKEN = 7;

  final RunDecider decider = new RunDecider(APPROVAL_TIMEOUT, ACTION_LEASE, DISPATCH_LEASE);
  static final RunSettings AUTO = RunSettings.autoApply("acme", "web");
  static final RunSettings APPROVAL = AUTO.withApproval();

  /** a.x, then b.y which waits for it, and c.z on its own. */
  static final PlanInfo PLAN =
      plan("digest-1", PlannedStep.of("a.x"), PlannedStep.of("b.y", "a.x"), PlannedStep.of("c.z"));

  static final PlanInfo NO_CHANGES =
      new PlanInfo("digest-0", false, "No changes text", "No changes.", 0, 0, 0, List.of());

  static PlanInfo plan(String digest, PlannedStep... steps) {
    return new PlanInfo(
        digest,
        true,
        "plan text of " + digest,
        "Plan: " + steps.length + " to add, 0 to change, 0 to destroy.",
        steps.length,
        0,
        0,
        List.of(steps));
  }

  static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  // --- histories -------------------------------------------------------------------------------

  List<RunEvent> pending(RunSettings s) {
    return history(decider, s, new Start(null), new Admitted());
  }

  List<RunEvent> queued(RunSettings s) {
    return history(decider, s, pending(s), new LockQueued(2));
  }

  List<RunEvent> planning(RunSettings s) {
    return history(decider, s, pending(s), new LockGranted(LOCK, TOKEN), new Opened(CREDENTIAL));
  }

  List<RunEvent> planned(RunSettings s, PlanInfo plan) {
    return history(decider, s, planning(s), new Planned(plan, 3, null, T0));
  }

  /** Auto-applied: a.x and c.z dispatched, b.y waits for a.x. */
  List<RunEvent> applying() {
    return planned(AUTO, PLAN);
  }

  List<RunEvent> after(RunSettings s, List<RunEvent> before, RunCommand... commands) {
    return history(decider, s, before, commands);
  }

  static StateRecorded recorded(String address, String outcome, long atSecond) {
    return new StateRecorded(RUN + "/" + address, address, outcome, null, null, at(atSecond));
  }

  // --- → pending -------------------------------------------------------------------------------

  @Test
  void toPendingWhenTheRunIsCreatedWithTheTriggersNote() {
    given(decider, AUTO, List.of())
        .when(new Start("deploy from chat"))
        .thenEvents(new Transitioned(RunStatus.PENDING, RunStatus.PENDING, "deploy from chat", 1))
        .thenEffects(
            RecordTransition.class,
            PublishTransition.class,
            RecordRequest.class,
            AwaitAdmission.class);
  }

  @Test
  void pendingAsksForTheLockOnceAdmitted() {
    given(decider, AUTO, history(decider, AUTO, new Start(null)))
        .when(new Admitted())
        .thenNoEvents()
        .thenEffects(RequestLock.class);
  }

  @ParameterizedTest
  @EnumSource(
      value = RunStatus.class,
      names = {"PENDING", "QUEUED", "PLANNING", "PLANNED"})
  void pendingThroughPlannedToPendingWhenARestartedPlannerResumesTheRun(RunStatus recorded) {
    String message = "Resumed after a planner restart: planner instance p1 restarted while this";
    given(decider, AUTO, List.of())
        .when(new Resume(recorded, 41, message, null, null))
        .thenEvents(
            new Restarted(1_000_041, null, null, null),
            new Transitioned(RunStatus.PENDING, RunStatus.PENDING, message, 1_000_042))
        .thenEffects(RecordTransition.class, PublishTransition.class, AwaitAdmission.class);
  }

  @Test
  void pendingThroughPlannedToPendingWhenAnotherPlannerAdoptedTheRun() {
    String message =
        "Resumed after adoption: this run was adopted by planner instance B after instance A"
            + " stopped renewing its lease while this run was queued";
    given(decider, AUTO, List.of())
        .when(new Resume(RunStatus.QUEUED, 5, message, null, null))
        .thenLastTransition(RunStatus.PENDING, message)
        .thenEffect(new AwaitAdmission());
  }

  @Test
  void aResumedRunGetsItsLeaseBackAndRenewsItAtOnce() {
    var resumed = history(decider, AUTO, new Resume(RunStatus.PLANNING, 5, "Resumed", null, null));
    given(decider, AUTO, resumed)
        .when(new LockGranted(LOCK, TOKEN))
        .thenEffects(StartHeartbeat.class, OpenRun.class)
        .thenEffect(new StartHeartbeat(LOCK, true));
  }

  @Test
  void aRecordedApplyingRunIsNotResumedButCarriedOn() {
    given(decider, AUTO, List.of())
        .when(new Resume(RunStatus.APPLYING, 5, "Resumed", null, null))
        .thenRefused(Refusal.NOT_RESUMABLE)
        .thenNoEvents();
  }

  @Test
  void aResumedRunThatAwaitedApprovalWaitsAgainWhenItPlansTheSameDigest() {
    var resumed =
        history(
            decider,
            APPROVAL,
            new Resume(RunStatus.PLANNED, 9, "Resumed", PLAN.digest(), at(-600)),
            new Admitted(),
            new LockGranted(LOCK, TOKEN),
            new Opened(CREDENTIAL));
    var then =
        given(decider, APPROVAL, resumed)
            .when(new Planned(PLAN, 3, null, T0))
            .thenTransitions(RunStatus.PLANNED)
            .thenStatus(RunStatus.PLANNED);
    // the approval timeout still counts from the first plan
    assertEquals(at(-600).plus(APPROVAL_TIMEOUT), decider.approvalDeadline(then.state()).get());
    assertEquals(
        at(-600).plus(APPROVAL_TIMEOUT), then.effect(PublishTransition.class).approvalExpiresAt());
  }

  @Test
  void aResumedRunThatAwaitedApprovalEndsErroredWhenThePlanMoved() {
    var resumed =
        history(
            decider,
            APPROVAL,
            new Resume(RunStatus.PLANNED, 9, "Resumed", "digest-old", T0),
            new Admitted(),
            new LockGranted(LOCK, TOKEN),
            new Opened(CREDENTIAL));
    given(decider, APPROVAL, resumed)
        .when(new Planned(PLAN, 3, null, at(5)))
        .thenTransitions(RunStatus.ERRORED)
        .thenLastTransition(
            RunStatus.ERRORED, RestartRecovery.planMovedMessage("digest-old", PLAN.digest()))
        .thenEffect(new ReleaseLock(LOCK))
        .thenEffect(new RevokeCredential());
  }

  @Test
  void aResumedRunWhoseApprovalTimeoutPassedWhileItWasDownIsDiscardedOnceItPlansAgain() {
    var resumed =
        history(
            decider,
            APPROVAL,
            new Resume(RunStatus.PLANNED, 9, "Resumed", PLAN.digest(), at(-7200)),
            new Admitted(),
            new LockGranted(LOCK, TOKEN),
            new Opened(CREDENTIAL));
    given(decider, APPROVAL, resumed)
        .when(new Planned(PLAN, 3, null, T0))
        .thenTransitions(RunStatus.PLANNED, RunStatus.DISCARDED)
        .thenLastTransition(RunStatus.DISCARDED, RunMessages.approvalExpired(APPROVAL_TIMEOUT));
  }

  // --- pending → queued ------------------------------------------------------------------------

  @Test
  void pendingToQueuedWhileTheTenantHasNoFreeSlotThenAdmitted() {
    String reason = "waiting: tenant has 4 active runs (cap 4)";
    var started = history(decider, AUTO, new Start(null));
    given(decider, AUTO, started)
        .when(new RunCommand.AdmissionQueued(reason))
        .thenLastTransition(RunStatus.QUEUED, reason)
        .thenEffects(RecordTransition.class, PublishTransition.class);
    var waiting = after(AUTO, started, new RunCommand.AdmissionQueued(reason));
    given(decider, AUTO, waiting)
        .when(new Admitted())
        .thenNoEvents()
        .thenEffect(new RunEffect.RequestLock(false));
    // once it holds the lock, an admission answer is out of turn
    given(decider, AUTO, after(AUTO, pending(AUTO), new LockGranted(LOCK, TOKEN)))
        .when(new RunCommand.AdmissionQueued(reason))
        .thenRefused(Refusal.NOT_EXPECTED);
  }

  @Test
  void pendingToQueuedWhenTheLockIsHeldByAnotherRun() {
    given(decider, AUTO, pending(AUTO))
        .when(new LockQueued(2))
        .thenEvents(
            new QueuePositionChanged(2),
            new Transitioned(
                RunStatus.PENDING,
                RunStatus.QUEUED,
                "Waiting for the workspace lock (position 2 in the queue).",
                2))
        .thenEffects(RecordTransition.class, PublishTransition.class, RequestLock.class)
        .thenEffect(new RequestLock(true));
  }

  @Test
  void queuedToQueuedAgainWhenThePositionChanges() {
    given(decider, AUTO, queued(AUTO))
        .when(new LockQueued(1))
        .thenLastTransition(
            RunStatus.QUEUED, "Waiting for the workspace lock (position 1 in the queue).");
  }

  @Test
  void queuedSaysNothingWhenThePositionIsUnchanged() {
    given(decider, AUTO, queued(AUTO))
        .when(new LockQueued(2))
        .thenNoEvents()
        .thenEffects(RequestLock.class);
  }

  // --- pending / queued → planning -------------------------------------------------------------

  @Test
  void pendingToPlanningWhenTheLockIsGrantedAndTheRunOpened() {
    given(decider, AUTO, pending(AUTO))
        .when(new LockGranted(LOCK, TOKEN))
        .thenEvents(new LockAcquired(LOCK, TOKEN))
        .thenEffects(StartHeartbeat.class, OpenRun.class)
        .thenEffect(new OpenRun(TOKEN));
    given(decider, AUTO, after(AUTO, pending(AUTO), new LockGranted(LOCK, TOKEN)))
        .when(new Opened(CREDENTIAL))
        .thenEvents(
            new RunOpened(CREDENTIAL),
            new Transitioned(RunStatus.PENDING, RunStatus.PLANNING, null, 2))
        .thenEffects(RecordTransition.class, PublishTransition.class, Plan.class);
  }

  @Test
  void queuedToPlanningWhenTheLockIsGrantedAndTheRunOpened() {
    var granted = after(AUTO, queued(AUTO), new LockGranted(LOCK, TOKEN));
    given(decider, AUTO, granted)
        .when(new Opened(CREDENTIAL))
        .thenTransitions(RunStatus.PLANNING)
        .thenStatus(RunStatus.PLANNING);
  }

  @Test
  void aSecondGrantIsNotExpected() {
    given(decider, AUTO, planning(AUTO))
        .when(new LockGranted(LOCK, TOKEN))
        .thenRefused(Refusal.NOT_EXPECTED)
        .thenNoEvents()
        .thenNoEffects();
  }

  // --- planning → planned → … ------------------------------------------------------------------

  @Test
  void aRunOpenedWithoutACredentialPlansAndEndsWithNothingToRevoke() {
    // a state service that mints no credential (the test ports' default): opened all the same
    var granted = after(AUTO, pending(AUTO), new LockGranted(LOCK, TOKEN));
    given(decider, AUTO, granted)
        .when(new Opened(null))
        .thenEvents(
            new RunOpened(null), new Transitioned(RunStatus.PENDING, RunStatus.PLANNING, null, 2))
        .thenEffects(RecordTransition.class, PublishTransition.class, Plan.class);
    var planning = after(AUTO, granted, new Opened(null));
    given(decider, AUTO, planning)
        .when(new Planned(NO_CHANGES, 3, null, T0))
        .thenEvents(
            new PlanMade(NO_CHANGES, T0),
            new Transitioned(RunStatus.PLANNING, RunStatus.PLANNED, "No changes text", 3),
            new LockReleased(LOCK),
            new Transitioned(RunStatus.PLANNED, RunStatus.PLANNED_AND_FINISHED, "No changes.", 4))
        .thenEffects(
            RecordTransition.class,
            PublishTransition.class,
            StopHeartbeat.class,
            ReleaseLock.class,
            RecordTransition.class,
            PublishTransition.class,
            Close.class);
    given(decider, AUTO, planning)
        .when(new Planned(PLAN, 3, null, T0))
        .thenTransitions(RunStatus.PLANNED, RunStatus.APPLYING)
        .thenStatus(RunStatus.APPLYING)
        .effect(Dispatch.class);
  }

  @Test
  void aPlanOfARunNotOpenedYetIsRefused() {
    var granted = after(AUTO, pending(AUTO), new LockGranted(LOCK, TOKEN));
    given(decider, AUTO, granted)
        .when(new Planned(PLAN, 3, null, T0))
        .thenRefused(Refusal.NOT_EXPECTED)
        .thenNoEvents()
        .thenNoEffects();
    // a carried-on run holding the credential its dispatches carried is not opened by it: it
    // plans the rest only once it opened again
    var carried =
        history(
            decider,
            AUTO,
            new CarryOn(20, "carried", List.of(DONE, RUNNING), null, CREDENTIAL),
            new Admitted(),
            new LockGranted(LOCK, TOKEN),
            new CarriedOutcomesRead(Map.of(DONE.actionId(), "succeeded"), at(30)));
    var holding = given(decider, AUTO, carried);
    assertEquals(CREDENTIAL, holding.state().credential());
    holding
        .when(new Planned(plan("digest-rest", PlannedStep.of("d.w")), 4, null, at(50)))
        .thenRefused(Refusal.NOT_EXPECTED)
        .thenNoEvents();
  }

  @Test
  void planningToPlannedWhenThePlanWasMade() {
    var then =
        given(decider, APPROVAL, planning(APPROVAL))
            .when(new Planned(PLAN, 3, null, T0))
            .thenEvents(
                new PlanMade(PLAN, T0),
                new Transitioned(RunStatus.PLANNING, RunStatus.PLANNED, "plan text of digest-1", 3))
            .thenEffects(RecordTransition.class, PublishTransition.class);
    // a bot following the run-events topic learns what to approve, and until when
    PublishTransition published = then.effect(PublishTransition.class);
    assertEquals(PLAN.digest(), published.planDigest());
    assertEquals(T0.plus(APPROVAL_TIMEOUT), published.approvalExpiresAt());
  }

  @Test
  void plannedToPlannedAndFinishedWhenThePlanHasNoChanges() {
    given(decider, AUTO, planning(AUTO))
        .when(new Planned(NO_CHANGES, 3, null, T0))
        .thenEvents(
            new PlanMade(NO_CHANGES, T0),
            new Transitioned(RunStatus.PLANNING, RunStatus.PLANNED, "No changes text", 3),
            new CredentialRevoked(),
            new LockReleased(LOCK),
            new Transitioned(RunStatus.PLANNED, RunStatus.PLANNED_AND_FINISHED, "No changes.", 4))
        .thenEffects(
            RecordTransition.class,
            PublishTransition.class,
            RevokeCredential.class,
            StopHeartbeat.class,
            ReleaseLock.class,
            RecordTransition.class,
            PublishTransition.class,
            Close.class);
  }

  @Test
  void plannedToApplyingAtOnceWithAutoApply() {
    given(decider, AUTO, planning(AUTO))
        .when(new Planned(PLAN, 3, null, T0))
        .thenEvents(
            new PlanMade(PLAN, T0),
            new Transitioned(RunStatus.PLANNING, RunStatus.PLANNED, "plan text of digest-1", 3),
            new ApplyScheduled(ApplySteps.of(PLAN.steps(), 10)),
            new Transitioned(
                RunStatus.PLANNED,
                RunStatus.APPLYING,
                "Plan: 3 to add, 0 to change, 0 to destroy.",
                4),
            new ActionDispatched(RUN + "/a.x", "a.x", "create", 5, T0),
            new ActionDispatched(RUN + "/c.z", "c.z", "create", 6, T0))
        .thenEffect(
            new Dispatch(
                List.of(
                    new DispatchAction(RUN + "/a.x", "a.x", "create", 5),
                    new DispatchAction(RUN + "/c.z", "c.z", "create", 6)),
                TOKEN));
  }

  @Test
  void plannedToApplyingWhenApproved() {
    given(decider, APPROVAL, planned(APPROVAL, PLAN))
        .when(new Approve(PLAN.digest(), "deployer@acme", at(60)))
        .thenAccepted()
        .thenEvents(
            new ApprovalRecorded("deployer@acme", at(60)),
            new ApplyScheduled(ApplySteps.of(PLAN.steps(), 10)),
            new Transitioned(
                RunStatus.PLANNED,
                RunStatus.APPLYING,
                "Approved by deployer@acme. Plan: 3 to add, 0 to change, 0 to destroy.",
                4),
            new ActionDispatched(RUN + "/a.x", "a.x", "create", 5, at(60)),
            new ActionDispatched(RUN + "/c.z", "c.z", "create", 6, at(60)))
        .thenEffects(RecordTransition.class, PublishTransition.class, Dispatch.class);
  }

  @Test
  void parallelismLimitsWhatIsDispatchedAtOnce() {
    RunSettings one = new RunSettings("acme", "web", false, null, null, 1);
    var then =
        given(decider, one, planning(one))
            .when(new Planned(PLAN, 3, null, T0))
            .thenStatus(RunStatus.APPLYING);
    assertEquals(
        List.of("a.x"),
        then.effect(Dispatch.class).actions().stream().map(DispatchAction::address).toList());
  }

  // --- applying → applied ----------------------------------------------------------------------

  @Test
  void applyingDispatchesAStepOnceWhatItWaitsForSucceeded() {
    given(decider, AUTO, applying())
        .when(recorded("a.x", "succeeded", 10))
        .thenEvents(
            new RunEvent.ActionEnded(RUN + "/a.x", "a.x", true, "complete"),
            new ActionDispatched(RUN + "/b.y", "b.y", "create", 7, at(10)))
        .thenEffects(Dispatch.class);
  }

  @Test
  void applyingToAppliedWhenEveryActionSucceeded() {
    var allButOne =
        after(AUTO, applying(), recorded("a.x", "succeeded", 10), recorded("c.z", "succeeded", 11));
    var finishing =
        given(decider, AUTO, allButOne)
            .when(recorded("b.y", "succeeded", 12))
            .thenTransitions()
            .thenEffects(RecordOutputs.class);
    assertEquals(
        "Apply complete! Resources: 3 added, 0 changed, 0 destroyed.",
        finishing.state().finishingMessage());
    given(decider, AUTO, after(AUTO, allButOne, recorded("b.y", "succeeded", 12)))
        .when(new OutputsRecorded("\nWarning: output x is sensitive"))
        .thenLastTransition(
            RunStatus.APPLIED,
            "Apply complete! Resources: 3 added, 0 changed, 0 destroyed.\n"
                + "Warning: output x is sensitive")
        .thenEffect(new ReleaseLock(LOCK))
        .thenEffect(new Close());
  }

  // --- any → errored ---------------------------------------------------------------------------

  @Test
  void anyToErroredOnInvalidConfiguration() {
    given(decider, AUTO, planning(AUTO))
        .when(new PlanFailed("Error: Unsupported argument at main.tf:3:5"))
        .thenLastTransition(RunStatus.ERRORED, "Error: Unsupported argument at main.tf:3:5")
        .thenEffect(new ReleaseLock(LOCK));
  }

  @Test
  void anyToErroredOnAStaleExpectedSerial() {
    RunSettings bound = AUTO.expecting(2L, null);
    given(decider, bound, planning(bound))
        .when(new Planned(PLAN, 3, null, T0))
        .thenLastTransition(RunStatus.ERRORED, RunMessages.staleSerial(2, 3));
  }

  @Test
  void anyToErroredOnAStaleExpectedDigest() {
    RunSettings saved = AUTO.expecting(3L, "digest-saved");
    given(decider, saved, planning(saved))
        .when(new Planned(PLAN, 3, null, T0))
        .thenTransitions(RunStatus.ERRORED)
        .thenLastTransition(RunStatus.ERRORED, RunMessages.savedPlanMismatch());
  }

  @Test
  void anyToErroredWhenAnActionFailed() {
    // a.x fails: b.y, which waits for it, never runs; c.z goes on
    var failed =
        given(decider, AUTO, applying())
            .when(new StateRecorded(RUN + "/a.x", "a.x", "failed", "exit 1", null, at(10)))
            .thenTransitions();
    assertEquals(ApplySteps.Status.SKIPPED, failed.state().steps().status("b.y"));
    given(decider, AUTO, after(AUTO, applying(), recorded("a.x", "failed", 10)))
        .when(recorded("c.z", "succeeded", 11))
        .thenLastTransition(RunStatus.ERRORED, "Apply failed: a.x");
  }

  @Test
  void anyToErroredWhenAPostconditionFails() {
    given(decider, AUTO, applying())
        .when(
            new StateRecorded(
                RUN + "/a.x", "a.x", "succeeded", null, "Error: postcondition failed", at(10)))
        .thenEvents(
            new RunEvent.ActionEnded(
                RUN + "/a.x", "a.x", false, "failed: Error: postcondition failed"));
  }

  @Test
  void anyToErroredWhenAStepCannotBeResolved() {
    given(decider, AUTO, after(AUTO, applying(), recorded("c.z", "succeeded", 5)))
        .when(new DispatchFailed("a.x", "Error: no such host", at(6)))
        .thenLastTransition(RunStatus.ERRORED, "Apply failed: a.x");
  }

  @Test
  void anyToErroredWhenAPortFails() {
    given(decider, AUTO, after(AUTO, pending(AUTO), new LockGranted(LOCK, TOKEN)))
        .when(new EffectFailed(new OpenRun(TOKEN), "state service unavailable"))
        .thenLastTransition(RunStatus.ERRORED, "Run failed: state service unavailable")
        .thenEffect(new ReleaseLock(LOCK));
  }

  @Test
  void anyToErroredWhenTheOutputsCannotBeRecorded() {
    var applied =
        after(
            AUTO,
            applying(),
            recorded("a.x", "succeeded", 1),
            recorded("c.z", "succeeded", 2),
            recorded("b.y", "succeeded", 3));
    given(decider, AUTO, applied)
        .when(new OutputsFailed("connection refused"))
        .thenLastTransition(
            RunStatus.ERRORED,
            RunMessages.outputsNotRecorded(
                "Apply complete! Resources: 3 added, 0 changed, 0 destroyed.",
                "connection refused"));
  }

  @Test
  void aFailedPublicationOfATransitionChangesNothing() {
    var then =
        given(decider, AUTO, planning(AUTO))
            .when(
                new EffectFailed(
                    new PublishTransition(
                        new Transitioned(RunStatus.PENDING, RunStatus.PLANNING, null, 2),
                        null,
                        null),
                    "broker down"))
            .thenAccepted()
            .thenNoEvents()
            .thenNoEffects();
    assertEquals(RunStatus.PLANNING, then.state().status());
  }

  // --- applying → pending → applying (carry-on) ------------------------------------------------

  static final CarriedAction DONE = new CarriedAction(RUN + "/a.x", "a.x", "create", T0, true);
  static final CarriedAction RUNNING = new CarriedAction(RUN + "/c.z", "c.z", "create", T0, true);

  List<RunEvent> carriedApplying(RunSettings s) {
    return history(
        decider,
        s,
        new CarryOn(
            20,
            "Resumed after a planner restart: … applying …",
            List.of(DONE, RUNNING),
            "digest-approved"),
        new Admitted(),
        new LockGranted(LOCK, TOKEN),
        new CarriedOutcomesRead(Map.of(DONE.actionId(), "succeeded"), at(30)));
  }

  @Test
  void applyingToPendingToApplyingWhenARestartedPlannerCarriesTheRunOn() {
    String message =
        "Resumed after a planner restart: planner instance p1 restarted while applying";
    given(decider, AUTO, List.of())
        .when(new CarryOn(20, message, List.of(DONE, RUNNING), null))
        .thenLastTransition(RunStatus.PENDING, message)
        .thenEffects(RecordTransition.class, PublishTransition.class, AwaitAdmission.class);
    var granted =
        history(
            decider, AUTO, new CarryOn(20, message, List.of(DONE, RUNNING), null), new Admitted());
    given(decider, AUTO, granted)
        .when(new LockGranted(LOCK, TOKEN))
        .thenEffects(StartHeartbeat.class, ReadCarriedOutcomes.class)
        .thenEffect(new StartHeartbeat(LOCK, true));
    var read = after(AUTO, granted, new LockGranted(LOCK, TOKEN));
    var applyingAgain =
        given(decider, AUTO, read)
            .when(new CarriedOutcomesRead(Map.of(DONE.actionId(), "succeeded"), at(30)))
            .thenLastTransition(
                RunStatus.APPLYING,
                "Carried on: of the 2 action(s) this run had dispatched before its planner"
                    + " instance stopped, 1 had finished (a.x: succeeded) and 1 were still running"
                    + " (c.z). Nothing is run twice: running actions are awaited (an executor that"
                    + " stopped reporting has its action reported interrupted), then the rest of"
                    + " the plan is made against the current state and applied.")
            .thenEffects(RecordTransition.class, PublishTransition.class);
    assertEquals(1_000_022, applyingAgain.state().sequence());
    assertTrue(applyingAgain.state().inFlight().get(RUNNING.actionId()).carried());
  }

  @Test
  void aCarriedOnRunPlansTheRestOnceEveryDispatchedActionHasAnOutcome() {
    given(decider, AUTO, carriedApplying(AUTO))
        .when(recorded("c.z", "succeeded", 40))
        .thenEffects(OpenRun.class);
    var reopened = after(AUTO, carriedApplying(AUTO), recorded("c.z", "succeeded", 40));
    given(decider, AUTO, reopened)
        .when(new Opened(CREDENTIAL))
        .thenTransitions() // no planning transition: it stays applying
        .thenEffects(Plan.class);
    var rest = plan("digest-rest", PlannedStep.of("d.w"));
    given(decider, AUTO, after(AUTO, reopened, new Opened(CREDENTIAL)))
        .when(new Planned(rest, 4, null, at(50)))
        .thenLastTransition(
            RunStatus.APPLYING,
            "Carried on, applying the rest: Plan: 1 to add, 0 to change, 0 to destroy.")
        .thenEffect(
            new Dispatch(
                List.of(new DispatchAction(RUN + "/d.w", "d.w", "create", 1_000_024)), TOKEN));
  }

  @Test
  void aCarriedOnRunEndsErroredWhenADispatchedActionDidNotSucceed() {
    given(decider, AUTO, carriedApplying(AUTO))
        .when(recorded("c.z", "interrupted", 40))
        .thenTransitions(RunStatus.ERRORED)
        .thenLastTransition(
            RunStatus.ERRORED,
            "Apply failed: c.z (dispatched before its planner instance stopped: a.x: succeeded,"
                + " c.z: interrupted). Nothing more was dispatched and nothing was run twice. Check"
                + " the workspace's state (stagecraft state list) and start a new run.");
  }

  @Test
  void aCarriedOnRunEndsErroredRatherThanDispatchAnAddressTwice() {
    var planningRest =
        after(
            AUTO, carriedApplying(AUTO), recorded("c.z", "succeeded", 40), new Opened(CREDENTIAL));
    given(decider, AUTO, planningRest)
        .when(new Planned(plan("digest-rest", PlannedStep.of("c.z")), 4, null, at(50)))
        .thenLastTransition(RunStatus.ERRORED, RunMessages.wouldRepeat(List.of("c.z")));
  }

  @Test
  void aCarriedOnRunOfAnApprovedPlanEndsErroredWhenTheRestIsNotPartOfIt() {
    var planningRest =
        after(
            APPROVAL,
            carriedApplying(APPROVAL),
            recorded("c.z", "succeeded", 40),
            new Opened(CREDENTIAL));
    var rest = plan("digest-rest", PlannedStep.of("d.w"));
    given(decider, APPROVAL, planningRest)
        .when(new Planned(rest, 4, "planned differently from the approved plan: d.w", at(50)))
        .thenTransitions(RunStatus.ERRORED)
        .thenMessageContains("planned differently from the approved plan: d.w");
    assertEquals("digest-approved", given(decider, APPROVAL, planningRest).state().shownDigest());
  }

  @Test
  void aCarriedOnRunWithNothingLeftEndsApplied() {
    var planningRest =
        after(
            AUTO, carriedApplying(AUTO), recorded("c.z", "succeeded", 40), new Opened(CREDENTIAL));
    var then =
        given(decider, AUTO, planningRest)
            .when(new Planned(NO_CHANGES, 4, null, at(50)))
            .thenEffects(RecordOutputs.class);
    assertEquals(
        "Apply complete! Resources: 2 added, 0 changed, 0 destroyed. 2 action(s) applied, all"
            + " dispatched before its planner instance stopped; nothing remained.",
        then.state().finishingMessage());
  }

  // --- planning…applying → errored: the lock lost ----------------------------------------------

  static Stream<String> lockHoldingStatuses() {
    return Stream.of("planning", "planned", "applying");
  }

  List<RunEvent> holding(String status) {
    return switch (status) {
      case "planning" -> planning(APPROVAL);
      case "planned" -> planned(APPROVAL, PLAN);
      default -> applying();
    };
  }

  @ParameterizedTest
  @MethodSource("lockHoldingStatuses")
  void planningThroughApplyingToErroredWhenTheLockLeaseExpired(String status) {
    String message = RunMessages.leaseExpired(T0, LOCK, TOKEN);
    given(decider, APPROVAL, holding(status))
        .when(new LockLost(LockLoss.LEASE_EXPIRED, LOCK, TOKEN, message))
        .thenTransitions(RunStatus.ERRORED)
        .thenLastTransition(RunStatus.ERRORED, message)
        .thenEffect(new RevokeCredential())
        .thenEffect(new ReleaseLock(LOCK))
        .thenEffect(new Close());
  }

  @ParameterizedTest
  @MethodSource("lockHoldingStatuses")
  void planningThroughApplyingToErroredWhenTheLockWasForcedOpen(String status) {
    String message = RunMessages.forceUnlocked("admin@acme", "stuck", TOKEN);
    given(decider, APPROVAL, holding(status))
        .when(new LockLost(LockLoss.FORCE_UNLOCKED, "client-lock-id", TOKEN, message))
        .thenLastTransition(RunStatus.ERRORED, message);
  }

  @ParameterizedTest
  @MethodSource("lockHoldingStatuses")
  void planningThroughApplyingToErroredWhenTheHeartbeatIsRefused(String status) {
    given(decider, APPROVAL, holding(status))
        .when(new LockLost(LockLoss.HEARTBEAT_REFUSED, LOCK, TOKEN, RunMessages.heartbeatRefused()))
        .thenLastTransition(RunStatus.ERRORED, RunMessages.heartbeatRefused());
  }

  @Test
  void aLockEventNamingAnotherLockIsIgnored() {
    given(decider, AUTO, applying())
        .when(new LockLost(LockLoss.LEASE_EXPIRED, "lock-0", TOKEN, "old"))
        .thenRefused(Refusal.STALE)
        .thenNoEvents();
    given(decider, AUTO, applying())
        .when(new LockLost(LockLoss.FORCE_UNLOCKED, LOCK, TOKEN - 1, "old"))
        .thenRefused(Refusal.STALE)
        .thenNoEvents();
  }

  // --- cancel ----------------------------------------------------------------------------------

  static Stream<String> beforeApplying() {
    return Stream.of("pending", "queued", "planning", "planned");
  }

  @ParameterizedTest
  @MethodSource("beforeApplying")
  void anyBeforeApplyingToCanceledOnCancel(String status) {
    List<RunEvent> given =
        switch (status) {
          case "pending" -> pending(APPROVAL);
          case "queued" -> queued(APPROVAL);
          case "planning" -> planning(APPROVAL);
          default -> planned(APPROVAL, PLAN);
        };
    given(decider, APPROVAL, given)
        .when(new CancelRequested("alice"))
        .thenTransitions(RunStatus.CANCELED)
        .thenLastTransition(RunStatus.CANCELED, "Run canceled by alice before it applied anything.")
        .thenEffect(new Close());
  }

  @Test
  void aLockGrantedToARunCanceledWhileQueuedIsReleasedAtOnce() {
    var canceled = after(AUTO, queued(AUTO), new CancelRequested("alice"));
    given(decider, AUTO, canceled)
        .when(new LockGranted("lock-late", 8))
        .thenRefused(Refusal.ALREADY_ENDED)
        .thenNoEvents()
        .thenEffects(ReleaseLock.class)
        .thenEffect(new ReleaseLock("lock-late"));
  }

  @Test
  void applyingToCanceledOnceTheStartedActionsEnded() {
    // a.x started on an executor; c.z no executor took yet
    var started =
        after(AUTO, applying(), new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)));
    var canceling =
        given(decider, AUTO, started)
            .when(new CancelRequested("alice"))
            .thenEvents(
                new RunEvent.CancelRecorded("alice", 7),
                new RunEvent.ActionDropped(RUN + "/c.z", "c.z"))
            .thenEffect(new RunEffect.BroadcastCancel("canceled by alice", 7))
            .thenStatus(RunStatus.APPLYING);
    assertEquals("alice", canceling.state().cancelRequestedBy());
    given(decider, AUTO, after(AUTO, started, new CancelRequested("alice")))
        .when(recorded("a.x", "succeeded", 5))
        .thenTransitions(RunStatus.CANCELED)
        .thenLastTransition(
            RunStatus.CANCELED,
            "Run canceled by alice. 1 action(s) completed, 0 failed or stopped; the rest did not"
                + " run. Instances whose create-time steps were stopped are tainted.");
  }

  @Test
  void aSecondCancelChangesNothing() {
    var started =
        after(
            AUTO,
            applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new CancelRequested("alice"));
    given(decider, AUTO, started)
        .when(new CancelRequested("bob"))
        .thenAccepted()
        .thenNoEvents()
        .thenNoEffects();
  }

  @Test
  void aCancelingRunDispatchesNothingMore() {
    var started =
        after(
            AUTO,
            applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new RunCommand.ActionStarted(RUN + "/c.z", "exec-2", at(1)),
            new CancelRequested("alice"));
    // a.x succeeding would make b.y ready: nothing is dispatched, c.z is still awaited
    given(decider, AUTO, started)
        .when(recorded("a.x", "succeeded", 5))
        .thenTransitions()
        .thenNoEffects();
  }

  // --- queued → canceled (coalescing) ----------------------------------------------------------

  @Test
  void queuedToCanceledWhenSupersededByANewerRunWithTheSameCoalescingKey() {
    given(decider, AUTO, queued(AUTO))
        .when(new Superseded("run-2", "run:deploy"))
        .thenTransitions(RunStatus.CANCELED)
        .thenLastTransition(RunStatus.CANCELED, RunMessages.superseded("run-2", "run:deploy"))
        .thenEffects(RecordTransition.class, PublishTransition.class, Close.class);
  }

  @Test
  void aRunHoldingTheLockIsNeverSuperseded() {
    given(decider, AUTO, planning(AUTO))
        .when(new Superseded("run-2", "run:deploy"))
        .thenRefused(Refusal.NOT_EXPECTED)
        .thenNoEvents();
  }

  // --- planned → discarded ---------------------------------------------------------------------

  @Test
  void plannedToDiscardedWhenDiscarded() {
    given(decider, APPROVAL, planned(APPROVAL, PLAN))
        .when(new Discard("bob"))
        .thenTransitions(RunStatus.DISCARDED)
        .thenLastTransition(RunStatus.DISCARDED, "Run discarded by bob; nothing was applied.")
        .thenEffect(new ReleaseLock(LOCK));
  }

  @Test
  void plannedToDiscardedWhenTheApprovalTimeoutPassed() {
    given(decider, APPROVAL, planned(APPROVAL, PLAN))
        .when(new Tick(T0.plus(APPROVAL_TIMEOUT).minusSeconds(1), null))
        .thenNoEvents();
    given(decider, APPROVAL, planned(APPROVAL, PLAN))
        .when(new Tick(T0.plus(APPROVAL_TIMEOUT), null))
        .thenLastTransition(
            RunStatus.DISCARDED,
            "The plan was not approved within 1h (the approval timeout); the run was discarded and"
                + " nothing was applied. Start a new run.");
  }

  // --- approval refusals -----------------------------------------------------------------------

  @Test
  void approvalOfAnotherDigestIsRefusedAsAStalePlan() {
    given(decider, APPROVAL, planned(APPROVAL, PLAN))
        .when(new Approve("digest-other", "alice", at(5)))
        .thenRefused(Refusal.WRONG_DIGEST)
        .thenNoEvents()
        .thenNoEffects()
        .thenStatus(RunStatus.PLANNED);
  }

  @Test
  void approvalOfARunNotWaitingIsRefusedAsNotAwaiting() {
    given(decider, APPROVAL, planning(APPROVAL))
        .when(new Approve(PLAN.digest(), "alice", at(5)))
        .thenRefused(Refusal.NOT_AWAITING);
    given(decider, AUTO, applying())
        .when(new Approve(PLAN.digest(), "alice", at(5)))
        .thenRefused(Refusal.NOT_AWAITING);
    var approved =
        after(APPROVAL, planned(APPROVAL, PLAN), new Approve(PLAN.digest(), "alice", at(5)));
    given(decider, APPROVAL, approved)
        .when(new Approve(PLAN.digest(), "bob", at(6)))
        .thenRefused(Refusal.NOT_AWAITING)
        .thenNoEvents();
  }

  @Test
  void approvalAfterTheTimeoutIsRefusedAsExpiredAndDiscardsTheRun() {
    given(decider, APPROVAL, planned(APPROVAL, PLAN))
        .when(new Approve(PLAN.digest(), "alice", T0.plus(APPROVAL_TIMEOUT).plusSeconds(1)))
        .thenRefused(Refusal.EXPIRED)
        .thenTransitions(RunStatus.DISCARDED)
        .thenEffect(new ReleaseLock(LOCK));
  }

  @Test
  void discardOfARunNotWaitingIsRefusedAsNotAwaiting() {
    given(decider, AUTO, applying())
        .when(new Discard("bob"))
        .thenRefused(Refusal.NOT_AWAITING)
        .thenNoEvents();
  }

  @Test
  void aPlanWithoutChangesIsNeverShownAsWaiting() {
    var then =
        given(decider, APPROVAL, planning(APPROVAL))
            .when(new Planned(NO_CHANGES, 3, null, T0))
            .thenTransitions(RunStatus.PLANNED, RunStatus.PLANNED_AND_FINISHED);
    assertNull(then.effect(PublishTransition.class).approvalExpiresAt());
  }

  // --- action leases ---------------------------------------------------------------------------

  @Test
  void aSilentStartedActionIsReportedInterruptedOnItsExecutorsBehalf() {
    var started =
        after(AUTO, applying(), new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)));
    given(decider, AUTO, started)
        .when(new Tick(at(16), null))
        .thenNoEffects(); // silent for exactly the lease: not yet
    var then =
        given(decider, AUTO, started)
            .when(new Tick(at(17), null))
            .thenEffects(RunEffect.ReportInterrupted.class);
    assertEquals("exec-1", then.effect(RunEffect.ReportInterrupted.class).executorId());
    assertTrue(then.state().cutShort().get("a.x").contains("executor exec-1 stopped reporting"));
    // reported once
    given(decider, AUTO, after(AUTO, started, new Tick(at(17), null)))
        .when(new Tick(at(40), null))
        .thenNoEffects();
  }

  @Test
  void aHeartbeatKeepsAnActionAlive() {
    var beating =
        after(
            AUTO,
            applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new ActionHeartbeat(RUN + "/a.x", "exec-1", at(10)));
    given(decider, AUTO, beating).when(new Tick(at(20), null)).thenNoEffects();
  }

  @Test
  void anActionReportedFinishedIsNotJudgedByItsLease() {
    var reported =
        after(
            AUTO,
            applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new ActionFinished(RUN + "/a.x", true, null));
    given(decider, AUTO, reported).when(new Tick(at(60), null)).thenNoEffects();
  }

  @Test
  void noLeaseIsJudgedWithinAnActionLeaseOfABrokerOutage() {
    var started =
        after(AUTO, applying(), new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)));
    given(decider, AUTO, started).when(new Tick(at(60), at(50))).thenNoEvents().thenNoEffects();
  }

  @Test
  void anActionNoExecutorTookWithinTheDispatchLeaseFailsWithoutRunning() {
    var then =
        given(decider, AUTO, after(AUTO, applying(), recorded("c.z", "succeeded", 1)))
            .when(new Tick(T0.plus(DISPATCH_LEASE).plusSeconds(1), null))
            .thenTransitions(RunStatus.ERRORED);
    assertTrue(then.transitions().getLast().message().startsWith("Apply failed: a.x"));
    assertTrue(then.transitions().getLast().message().contains("no executor took the action"));
  }

  @Test
  void aFailedInterruptedReportIsMadeAgainAtTheNextTick() {
    var reportedOnce =
        after(
            AUTO,
            applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new Tick(at(17), null));
    var failedReport = new RunEffect.ReportInterrupted(RUN + "/a.x", "a.x", "exec-1", "why", 7);
    var retry = after(AUTO, reportedOnce, new EffectFailed(failedReport, "broker down"));
    given(decider, AUTO, retry)
        .when(new Tick(at(18), null))
        .thenEffects(RunEffect.ReportInterrupted.class);
  }

  // --- terminal states -------------------------------------------------------------------------

  List<RunEvent> ended(RunStatus status) {
    return switch (status) {
      case PLANNED_AND_FINISHED ->
          after(AUTO, planning(AUTO), new Planned(NO_CHANGES, 3, null, T0));
      case APPLIED ->
          after(
              AUTO,
              applying(),
              recorded("a.x", "succeeded", 1),
              recorded("c.z", "succeeded", 2),
              recorded("b.y", "succeeded", 3),
              new OutputsRecorded(""));
      case ERRORED -> after(AUTO, planning(AUTO), new PlanFailed("invalid"));
      case CANCELED -> after(AUTO, queued(AUTO), new CancelRequested("alice"));
      case DISCARDED -> after(APPROVAL, planned(APPROVAL, PLAN), new Discard("bob"));
      default -> throw new IllegalArgumentException(status.name());
    };
  }

  static List<RunCommand> everyKindOfCommand() {
    List<RunCommand> all = new ArrayList<>();
    all.add(new Start(null));
    all.add(new Resume(RunStatus.PENDING, 1, "m", null, null));
    all.add(new CarryOn(1, "m", List.of(), null));
    all.add(new Admitted());
    all.add(new RunCommand.AdmissionQueued("waiting: tenant has 4 active runs (cap 4)"));
    all.add(new LockQueued(1));
    all.add(new Superseded("run-2", "run:default"));
    all.add(new LockLost(LockLoss.LEASE_EXPIRED, LOCK, TOKEN, "lost"));
    all.add(new RunCommand.OpenFailed("down"));
    all.add(new CarriedOutcomesRead(Map.of(), T0));
    all.add(new Planned(PLAN, 3, null, T0));
    all.add(new PlanFailed("invalid"));
    all.add(new Approve(PLAN.digest(), "alice", T0));
    all.add(new Discard("bob"));
    all.add(new CancelRequested("alice"));
    all.add(new DispatchFailed("a.x", "bad", T0));
    all.add(new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", T0));
    all.add(new ActionHeartbeat(RUN + "/a.x", "exec-1", T0));
    all.add(new ActionFinished(RUN + "/a.x", true, null));
    all.add(recorded("a.x", "succeeded", 1));
    all.add(new OutputsRecorded(""));
    all.add(new OutputsFailed("x"));
    all.add(new Tick(T0.plus(Duration.ofDays(1)), null));
    all.add(new EffectFailed(new Plan(), "x"));
    return all;
  }

  @Nested
  class TerminalStates {
    @ParameterizedTest
    @EnumSource(
        value = RunStatus.class,
        names = {"PLANNED_AND_FINISHED", "APPLIED", "ERRORED", "CANCELED", "DISCARDED"})
    void refuseEveryCommandAndNeverMove(RunStatus status) {
      RunSettings settings = status == RunStatus.DISCARDED ? APPROVAL : AUTO;
      RunScenario scenario = given(decider, settings, ended(status));
      assertEquals(status, scenario.state().status());
      for (RunCommand command : everyKindOfCommand()) {
        scenario
            .when(command)
            .thenRefused(Refusal.ALREADY_ENDED)
            .thenNoEvents()
            .thenNoEffects()
            .thenStatus(status);
      }
      // a lock granted or a run opened late is given back, the status unchanged
      scenario.when(new LockGranted("lock-9", 9)).thenEffects(ReleaseLock.class);
      scenario.when(new Opened(CREDENTIAL)).thenEffects(RevokeCredential.class);
      // opened without a credential: nothing to give back
      scenario.when(new Opened(null)).thenRefused(Refusal.ALREADY_ENDED).thenNoEffects();
      // and replaying an event on it changes nothing
      RunState state = scenario.state();
      assertSame(
          state,
          RunDecider.apply(
              state, new Transitioned(status, RunStatus.APPLYING, "moved", state.sequence() + 1)));
    }
  }

  @Test
  void everyTransitionCarriesTheNextSequenceOfTheRun() {
    List<Long> sequences =
        applying().stream()
            .map(
                e ->
                    switch (e) {
                      case Transitioned t -> t.sequence();
                      case ActionDispatched a -> a.sequence();
                      default -> null;
                    })
            .filter(s -> s != null)
            .toList();
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), sequences);
  }

  @Test
  void theRunCredentialNeverShowsInAStateOrEvent() {
    String shown = given(decider, AUTO, planning(AUTO)).state().toString() + planning(AUTO);
    assertTrue(!shown.contains("secret-credential"), shown);
  }
}
