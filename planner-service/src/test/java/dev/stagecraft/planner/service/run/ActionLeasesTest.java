package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Liveness of dispatched actions: the action lease (a silent executor's action is reported
 * interrupted, naming the step and host), the dispatch lease, and cancellation.
 */
class ActionLeasesTest {
  /** A {@code db} action with one step, then an {@code app} action that depends on it. */
  static final String ONE_STEP_THEN_APP = RunCoordinatorTest.TWO_STEPS;

  final MovableClock clock = new MovableClock();
  final FakeLocks locks = new FakeLocks();
  final FakeStates states = new FakeStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final AtomicInteger ids = harness.ids;
  final List<EventEnvelope> published = harness.published;
  final EventCodec executorCodec = new EventCodec("/executor", clock, () -> "x" + ids.get());
  final RunCoordinator coordinator = harness.coordinator;

  @AfterEach
  void close() {
    harness.close();
  }

  Run startAndAwaitFirstDispatch() {
    Run run = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    return run;
  }

  RunRequest request() {
    return CoordinatorHarness.twoSteps("prod");
  }

  List<ActionDispatched> dispatched() {
    return harness.dispatched();
  }

  <T> List<T> ofType(String type, Class<T> data) {
    return harness.ofType(type, data);
  }

  List<EventEnvelope> finishedEnvelopes() {
    return published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.action.finished"))
        .toList();
  }

  void fromExecutor(ActionDispatched action, Object data) {
    ids.incrementAndGet();
    coordinator.onActionEvent(
        executorCodec.wrap("acme", "prod", action.runId(), 1, action.address(), data));
  }

  void recorded(ActionDispatched action, String outcome, String error) {
    harness.stateRecorded("acme", "prod", action, outcome, error, 2);
  }

  List<String> statuses(Run run) {
    return ofType("dev.stagecraft.run.transitioned", RunTransitioned.class).stream()
        .filter(t -> t.runId().equals(run.id()))
        .map(RunTransitioned::status)
        .toList();
  }

  /**
   * The soak's Kafka restarts (issue 30, seed 5): steps still running were reported interrupted
   * because the planner counted the broker's silence as the executor's. While this planner could
   * not reach the broker within the lease, no action is judged silent.
   */
  @Test
  void noActionIsJudgedSilentUntilALeaseHasPassedSinceTheBrokerWasLastUnreachable() {
    AtomicReference<Instant> lastOutage = new AtomicReference<>(Instant.EPOCH);
    coordinator.withBrokerOutages(lastOutage::get);
    startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-ab12"));

    clock.advance(Duration.ofSeconds(10));
    lastOutage.set(clock.instant()); // the broker goes away: nothing is heard from anyone
    clock.advance(Duration.ofSeconds(8));
    lastOutage.set(clock.instant()); // still away 18 s after the last heartbeat, then back
    clock.advance(Duration.ofSeconds(14));
    coordinator.checkLeases();
    assertThat(finishedEnvelopes())
        .as("silent 32 s, past the 15 s lease, but the broker was away 14 s ago")
        .isEmpty();

    // a whole lease after the broker came back and still nothing from the executor: it is gone
    clock.advance(Duration.ofSeconds(2));
    coordinator.checkLeases();
    assertThat(finishedEnvelopes()).hasSize(1);
    assertThat(EventCodec.data(finishedEnvelopes().getFirst(), ActionFinished.class).outcome())
        .isEqualTo(ActionFinished.INTERRUPTED);
  }

  @Test
  void aStartedActionWhoseExecutorFallsSilentIsReportedInterruptedOnceNamingStepAndHost() {
    Run run = startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-ab12"));
    fromExecutor(
        db,
        new ActionStep(
            db.runId(),
            db.actionId(),
            db.address(),
            "executor-ab12",
            ActionStep.stepId(db.actionId(), 1),
            1,
            "remote-exec",
            "deploy@10.0.0.5:22",
            ActionStep.STARTED,
            null));

    clock.advance(Duration.ofSeconds(14));
    coordinator.checkLeases();
    assertThat(finishedEnvelopes()).as("within the lease").isEmpty();

    clock.advance(Duration.ofSeconds(2));
    coordinator.checkLeases();
    coordinator.checkLeases();

    assertThat(finishedEnvelopes()).hasSize(1);
    EventEnvelope envelope = finishedEnvelopes().getFirst();
    assertThat(envelope.id()).isEqualTo("interrupted-" + db.actionId());
    ActionFinished finished = EventCodec.data(envelope, ActionFinished.class);
    assertThat(finished.outcome()).isEqualTo(ActionFinished.INTERRUPTED);
    assertThat(finished.executorId()).isEqualTo("executor-ab12");
    assertThat(finished.fencingToken()).isEqualTo(db.fencingToken());
    assertThat(finished.action()).isEqualTo("create");
    assertThat(finished.error())
        .isEqualTo(
            "step 1 (remote-exec) on deploy@10.0.0.5:22 was interrupted: executor executor-ab12"
                + " stopped reporting (no heartbeat for 15 s). The step may have partly run; it"
                + " was not run again. The instance is tainted; the next apply replaces it.");

    // the state service records it like a failure; the run ends errored and says what happened
    recorded(db, "failed", finished.error());
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message())
        .contains("stateful_provisioning.db")
        .contains("step 1 (remote-exec) on deploy@10.0.0.5:22 was interrupted");
    assertThat(dispatched()).as("its dependent never runs").hasSize(1);
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void heartbeatsAndLogLinesKeepARunningActionAlive() {
    startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-1"));
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(10));
      fromExecutor(
          db,
          new ActionHeartbeat(
              db.runId(), db.actionId(), db.address(), "executor-1", 0, "local-exec", null));
      coordinator.checkLeases();
    }
    assertThat(finishedEnvelopes()).isEmpty();

    clock.advance(Duration.ofSeconds(16));
    coordinator.checkLeases();
    assertThat(EventCodec.data(finishedEnvelopes().getFirst(), ActionFinished.class).error())
        .startsWith(
            "step 0 (local-exec) on the executor host was interrupted: executor executor-1");
  }

  @Test
  void anActionSilentBeforeAnyStepWasReportedDoesNotClaimItWasBetweenSteps() {
    startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-1"));

    clock.advance(Duration.ofSeconds(16));
    coordinator.checkLeases();

    // its step record may have died with its executor (sent without waiting, ADR 0007)
    assertThat(EventCodec.data(finishedEnvelopes().getFirst(), ActionFinished.class).error())
        .startsWith(
            "the action was interrupted with no step reported running (between steps, or as one"
                + " started): executor executor-1 stopped reporting")
        .contains("A step that had just started may have partly run; it was not run again.");
  }

  @Test
  void anActionThatReportedItsOutcomeIsNeverDeclaredInterrupted() {
    startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-1"));
    fromExecutor(
        db,
        new ActionFinished(
            db.runId(),
            db.actionId(),
            db.address(),
            db.resourceType(),
            db.action(),
            ActionFinished.SUCCEEDED,
            null,
            null,
            Map.of(),
            List.of(),
            db.fencingToken(),
            "executor-1"));
    clock.advance(Duration.ofMinutes(5));
    coordinator.checkLeases();
    assertThat(finishedEnvelopes()).isEmpty();
  }

  @Test
  void anActionNoExecutorStartsWithinTheDispatchLeaseErrorsTheRunWithoutTouchingState() {
    Run run = startAndAwaitFirstDispatch();
    clock.advance(RunCoordinator.DEFAULT_DISPATCH_LEASE.minusSeconds(1));
    coordinator.checkLeases();
    assertThat(run.summary().status()).isEqualTo("applying");

    clock.advance(Duration.ofSeconds(2));
    coordinator.checkLeases();

    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message())
        .contains(
            "stateful_provisioning.db: not started: no executor took the action within 600 s");
    assertThat(finishedEnvelopes()).as("nothing ran: nothing to record").isEmpty();
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void cancelWhileApplyingStopsDispatchingAsksExecutorsAndEndsCanceledOnceRunningActionsReport() {
    Run run = startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-1"));

    coordinator.cancel("acme", run.id(), "deployer@acme");

    assertThat(ofType("dev.stagecraft.run.cancel-requested", RunCancelRequested.class))
        .containsExactly(new RunCancelRequested(run.id(), "canceled by deployer@acme"));
    assertThat(run.summary().status()).as("waits for the running action").isEqualTo("applying");
    assertThat(locks.released).isEmpty();

    recorded(db, "failed", "canceled (canceled by deployer@acme): step 0 was interrupted");

    assertThat(run.summary().status()).isEqualTo("canceled");
    assertThat(run.summary().message()).startsWith("Run canceled by deployer@acme.");
    assertThat(dispatched()).as("nothing more dispatched").hasSize(1);
    assertThat(locks.released).containsExactly(locks.lastLockId);
    assertThat(statuses(run)).endsWith("applying", "canceled");
  }

  @Test
  void cancelWhileApplyingEndsCanceledWhenTheRunningActionsLeaseExpires() {
    Run run = startAndAwaitFirstDispatch();
    ActionDispatched db = dispatched().getFirst();
    fromExecutor(db, new ActionStarted(db.runId(), db.actionId(), db.address(), "executor-1"));
    coordinator.cancel("acme", run.id(), "deployer@acme");

    clock.advance(Duration.ofSeconds(16));
    coordinator.checkLeases();
    ActionFinished interrupted =
        EventCodec.data(finishedEnvelopes().getFirst(), ActionFinished.class);
    recorded(db, "failed", interrupted.error());

    assertThat(run.summary().status()).isEqualTo("canceled");
    assertThat(run.summary().message()).contains("stateful_provisioning.db: the action was");
  }

  @Test
  void cancelBeforeApplyingEndsTheRunAtOnceAndReleasesTheLockItHeld() {
    locks.queuedAnswers = Integer.MAX_VALUE;
    Run queued = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> statuses(queued).contains("queued"));

    coordinator.cancel("acme", queued.id(), "deployer@acme");

    assertThat(queued.summary().status()).isEqualTo("canceled");
    assertThat(dispatched()).isEmpty();
  }
}
