package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Runs that wait for approval of their plan's digest (docs/runs.md), with a settable clock. */
class RunApprovalTest {
  final MovableClock clock = new MovableClock();
  final FakeLocks locks = new FakeLocks();
  final FakeStates states = new FakeStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final List<EventEnvelope> published = harness.published;
  final List<String> observed = new CopyOnWriteArrayList<>();
  final RunCoordinator coordinator =
      harness
          .coordinator
          .withApprovalTimeout(Duration.ofMinutes(30))
          .withObserver((run, seq, status, message, at) -> observed.add(seq + ":" + status));

  @AfterEach
  void cleanUp() {
    harness.close();
  }

  RunRequest request() {
    return CoordinatorHarness.twoSteps("prod");
  }

  List<String> statuses(Run run) {
    return harness.statuses(run);
  }

  long dispatchedCount() {
    return published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.action.dispatched"))
        .map(e -> EventCodec.data(e, ActionDispatched.class))
        .count();
  }

  Run planned() {
    Run run = coordinator.startAwaitingApproval(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().status().equals("planned"));
    return run;
  }

  @Test
  void aPlannedRunWaitsAndAppliesOnlyOnceItsDigestIsApproved() {
    Run run = planned();
    assertThat(dispatchedCount()).isZero();
    assertThat(locks.released).isEmpty(); // it keeps the lock while it waits
    String digest = run.summary().planDigest();
    assertThat(coordinator.approve("acme", run.id(), digest, "deployer@acme"))
        .isEqualTo(ApprovalOutcome.DONE);
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatchedCount() == 1);
    assertThat(run.summary().status()).isEqualTo("applying");
    assertThat(run.summary().message()).startsWith("Approved by deployer@acme.");
    assertThat(coordinator.approve("acme", run.id(), digest, "deployer@acme"))
        .isEqualTo(ApprovalOutcome.NOT_AWAITING);
  }

  @Test
  void thePlannedEventOfAWaitingRunNamesTheDigestToApproveAndUntilWhen() {
    Instant plannedAt = clock.instant();
    Run run = planned();
    String digest = run.summary().planDigest();
    Instant expires = plannedAt.plus(Duration.ofMinutes(30));
    assertThat(coordinator.approvalDeadline("acme", run.id())).contains(expires);
    assertThat(coordinator.approvalDeadline("other", run.id())).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> transitioned(run, "planned") != null);
    RunTransitioned planned = transitioned(run, "planned");
    assertThat(planned.planDigest()).isEqualTo(digest);
    assertThat(planned.approvalExpiresAt()).isEqualTo(expires.toString());

    coordinator.approve("acme", run.id(), digest, "deployer@acme");
    assertThat(coordinator.approvalDeadline("acme", run.id())).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> transitioned(run, "applying") != null);
    assertThat(transitioned(run, "applying").planDigest()).isNull();
    assertThat(transitioned(run, "applying").approvalExpiresAt()).isNull();
  }

  @Test
  void thePlannedEventOfARunThatAppliesAtOnceNamesNoDigest() {
    Run run = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> transitioned(run, "planned") != null);
    assertThat(transitioned(run, "planned").planDigest()).isNull();
    assertThat(transitioned(run, "planned").approvalExpiresAt()).isNull();
    assertThat(coordinator.approvalDeadline("acme", run.id())).isEmpty();
  }

  @Test
  void aRunWithoutChangesIsNeverShownAsWaitingForApproval() {
    states.json =
        """
        {"version":4,"serial":3,"lineage":"l","resources":[
          {"mode":"managed","type":"stateful_provisioning","name":"db","instances":[{"attributes":{"id":"1","state_key":"v1"}}]},
          {"mode":"managed","type":"stateful_provisioning","name":"app","instances":[{"attributes":{"id":"2","state_key":"v1"}}]}]}
        """;
    Run run = coordinator.startAwaitingApproval(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("planned_and_finished");
    await().atMost(Duration.ofSeconds(10)).until(() -> transitioned(run, "planned") != null);
    assertThat(transitioned(run, "planned").planDigest()).isNull();
    assertThat(transitioned(run, "planned").approvalExpiresAt()).isNull();
  }

  private RunTransitioned transitioned(Run run, String status) {
    return published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
        .map(e -> EventCodec.data(e, RunTransitioned.class))
        .filter(t -> t.runId().equals(run.id()) && t.status().equals(status))
        .findFirst()
        .orElse(null);
  }

  @Test
  void approvingAnotherDigestIsRefusedAsStaleAndChangesNothing() {
    Run run = planned();
    assertThat(coordinator.approve("acme", run.id(), "sha256:not-this-plan", "deployer@acme"))
        .isEqualTo(ApprovalOutcome.WRONG_DIGEST);
    assertThat(run.summary().status()).isEqualTo("planned");
    assertThat(dispatchedCount()).isZero();
  }

  @Test
  void anApprovalAfterTheTimeoutIsRefusedAndTheRunIsDiscardedWithItsLockReleased() {
    Run run = planned();
    clock.now = clock.now.plus(Duration.ofMinutes(31));
    assertThat(coordinator.approve("acme", run.id(), run.summary().planDigest(), "d@acme"))
        .isEqualTo(ApprovalOutcome.EXPIRED);
    assertThat(run.summary().status()).isEqualTo("discarded");
    assertThat(locks.released).containsExactly(locks.lastLockId);
    assertThat(dispatchedCount()).isZero();
  }

  @Test
  void discardEndsTheRunDiscardedAndReleasesTheLock() {
    Run run = planned();
    assertThat(coordinator.discard("acme", run.id(), "deployer@acme"))
        .isEqualTo(ApprovalOutcome.DONE);
    assertThat(run.summary().status()).isEqualTo("discarded");
    assertThat(locks.released).containsExactly(locks.lastLockId);
    assertThat(statuses(run)).containsExactly("pending", "planning", "planned", "discarded");
    assertThat(coordinator.approve("acme", run.id(), run.summary().planDigest(), "d@acme"))
        .isEqualTo(ApprovalOutcome.NOT_AWAITING);
  }

  @Test
  void cancelOfAWaitingRunEndsItCanceledAndReleasesTheLock() {
    Run run = planned();
    coordinator.cancel("acme", run.id(), "deployer@acme");
    assertThat(run.summary().status()).isEqualTo("canceled");
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void anotherTenantCanNeitherApproveNorDiscard() {
    Run run = planned();
    assertThat(coordinator.approve("other", run.id(), run.summary().planDigest(), "x@other"))
        .isEqualTo(ApprovalOutcome.NOT_FOUND);
    assertThat(coordinator.discard("other", run.id(), "x@other"))
        .isEqualTo(ApprovalOutcome.NOT_FOUND);
    assertThat(run.summary().status()).isEqualTo("planned");
  }

  @Test
  void theObserverSeesEveryTransitionWithIncreasingSequences() {
    Run run = planned();
    coordinator.discard("acme", run.id(), "deployer@acme");
    // recorded on the run's recording lane, off the run's path: wait for it, then check the order
    assertThat(coordinator.awaitRecorded("acme", run.id(), Duration.ofSeconds(10))).isTrue();
    assertThat(observed).containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED", "4:DISCARDED");
  }
}
