package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.planner.service.run.admission.TenantAdmission;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.planner.service.run.recovery.RecoveryCause;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import dev.stagecraft.planner.service.run.recovery.ResumableRun;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A restarted planner carries on runs that applied nothing ({@link RunCoordinator#resume}). */
class RunResumeTest {
  final MovableClock clock = new MovableClock();
  final FakeLocks locks = new FakeLocks();
  final FakeStates states = new FakeStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final List<String> observed = new CopyOnWriteArrayList<>();
  final List<String> recordedRequests = new CopyOnWriteArrayList<>();
  final RunCoordinator coordinator =
      harness
          .coordinator
          .withApprovalTimeout(Duration.ofMinutes(30))
          .withObserver((run, seq, status, message, at) -> observed.add(seq + ":" + status))
          .withRequestRecorder(
              (id, request, awaiting, message) ->
                  recordedRequests.add(
                      id + " " + request.workspace() + " awaiting=" + awaiting + " " + message));

  @AfterEach
  void cleanUp() {
    harness.close();
  }

  static RunRequest request() {
    return CoordinatorHarness.twoSteps("prod");
  }

  ResumableRun resumable(String id, String planDigest, Instant plannedAt) {
    return new ResumableRun(
        id,
        request(),
        planDigest != null,
        clock.instant().minusSeconds(60),
        7,
        planDigest,
        plannedAt);
  }

  /** The digest a plan of {@link #request()} against the fake state has. */
  String digestOfAFreshPlan() {
    Run probe = coordinator.startAwaitingApproval(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.summary().status().equals("planned"));
    String digest = probe.summary().planDigest();
    coordinator.discard("acme", probe.id(), "test");
    return digest;
  }

  @Test
  void aResumedRunKeepsItsIdAsksForTheLockAsItsHolderAndApplies() throws Exception {
    Run run =
        coordinator.resume(
            resumable("run-before", null, null),
            RestartRecovery.resumedMessage("planner-a", RunStatus.QUEUED));

    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);
    assertThat(run.id()).isEqualTo("run-before");
    assertThat(locks.holders).containsExactly("run-before");
    assertThat(harness.dispatched().get(0).runId()).isEqualTo("run-before");
    assertThat(harness.statuses(run)).containsExactly("pending", "planning", "planned", "applying");
    RunTransitioned first =
        EventCodec.data(
            harness.published.stream()
                .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
                .findFirst()
                .orElseThrow(),
            RunTransitioned.class);
    assertThat(first.message()).contains("Resumed after a planner restart").contains("queued");
    // sequences continue above the recorded ones, leaving room for records a crash lost
    assertThat(run.recording.awaitSubmitted(Duration.ofSeconds(10))).isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> observed.contains((7 + RunCoordinator.RESUME_SEQUENCE_GAP + 1) + ":PENDING"));
    // the request is recorded already: resuming does not record it again
    assertThat(recordedRequests).isEmpty();
  }

  @Test
  void aNewRunRecordsItsRequestOnItsRecordingLane() throws Exception {
    Run run = coordinator.start(request());
    Run waiting = coordinator.startAwaitingApproval(request());
    assertThat(run.recording.awaitSubmitted(Duration.ofSeconds(10))).isTrue();
    assertThat(waiting.recording.awaitSubmitted(Duration.ofSeconds(10))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> recordedRequests.size() == 2);
    assertThat(recordedRequests)
        .containsExactlyInAnyOrder(
            run.id() + " prod awaiting=false null", waiting.id() + " prod awaiting=true null");
  }

  @Test
  void aResumedPlannedRunWithAnUnchangedPlanWaitsAndAppliesOnceThatDigestIsApproved() {
    String digest = digestOfAFreshPlan();
    Run run =
        coordinator.resume(
            resumable("run-planned", digest, clock.instant()),
            RestartRecovery.resumedMessage("planner-a", RunStatus.PLANNED));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().status().equals("planned"));
    assertThat(harness.dispatched()).isEmpty();
    assertThat(run.summary().planDigest()).isEqualTo(digest);

    assertThat(coordinator.approve("acme", run.id(), digest, "deployer@acme"))
        .isEqualTo(ApprovalOutcome.DONE);
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);
    assertThat(harness.dispatched().get(0).runId()).isEqualTo("run-planned");
  }

  @Test
  void aResumedPlannedRunWhosePlanChangedEndsErroredAndAppliesNothing() {
    String digest = digestOfAFreshPlan();
    // the state moved while the planner was down: db exists now, so the plan differs
    states.json =
        """
        {"version":4,"serial":3,"lineage":"l","resources":[
          {"mode":"managed","type":"stateful_provisioning","name":"db","instances":[{"attributes":{"id":"1","state_key":"v1"}}]}]}
        """;
    int releasedBefore = locks.released.size();
    // after a restart and after an adoption (docs/adr/0034): the same message, naming no cause
    for (RecoveryCause cause :
        List.of(
            new RecoveryCause.Restart("planner-a"),
            new RecoveryCause.Adoption("planner-b", "planner-a"))) {
      Run run =
          coordinator.resume(
              resumable("run-moved-" + cause.getClass().getSimpleName(), digest, clock.instant()),
              cause.resumedMessage(RunStatus.PLANNED));
      await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());

      assertThat(run.summary().status()).isEqualTo("errored");
      assertThat(run.summary().message())
          .isEqualTo(RestartRecovery.planMovedMessage(digest, run.summary().planDigest()))
          .contains("moved since the plan that awaited approval was made")
          .contains(digest.substring(0, 16))
          .doesNotContainIgnoringCase("restart")
          .doesNotContainIgnoringCase("adopt");
      assertThat(coordinator.approve("acme", run.id(), digest, "deployer@acme"))
          .isEqualTo(ApprovalOutcome.NOT_AWAITING);
    }
    assertThat(harness.dispatched()).isEmpty();
    assertThat(locks.released).hasSize(releasedBefore + 2);
  }

  @Test
  void theApprovalTimeoutOfAResumedRunCountsFromItsFirstPlan() {
    String digest = digestOfAFreshPlan();
    Instant firstPlanned = clock.instant();
    clock.advance(Duration.ofMinutes(31)); // the planner was down longer than the timeout
    Run run =
        coordinator.resume(
            resumable("run-late", digest, firstPlanned),
            RestartRecovery.resumedMessage("planner-a", RunStatus.PLANNED));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());

    assertThat(run.summary().status()).isEqualTo("discarded");
    assertThat(harness.dispatched()).isEmpty();
  }

  @Test
  void aResumedRunGetsItsAdmissionSlotBeforeRunsStartedAfterIt() {
    RunCoordinator capped = coordinator.withAdmission(new TenantAdmission(1, Map.of(), 0));
    locks.queuedAnswers = Integer.MAX_VALUE; // nobody gets the lock: slots stay taken
    Run resumed =
        capped.resume(
            resumable("run-first", null, null),
            RestartRecovery.resumedMessage("planner-a", RunStatus.QUEUED));
    Run later = capped.start(request());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> later.summary().message() != null && resumed.summary().status().equals("queued"));
    assertThat(later.summary().message()).contains("tenant has 1 active runs (cap 1)");
    assertThat(resumed.summary().message()).contains("Waiting for the workspace lock");
    capped.cancel("acme", resumed.id(), "test");
    capped.cancel("acme", later.id(), "test");
  }
}
