package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionStarted;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The start of a run (docs/adr/0025): one state-service call once the lock is granted, and the
 * run's records written off its path — in order, readable after {@link
 * RunCoordinator#awaitRecorded}, and all written before a clean shutdown ends.
 */
class RunRecordingTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final FakeLocks locks = new FakeLocks();
  final OneCallStates states = new OneCallStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final List<String> observed = new CopyOnWriteArrayList<>();

  /** Holds every record until released, like a database that has not answered yet. */
  final CountDownLatch database = new CountDownLatch(1);

  final RunCoordinator coordinator =
      harness.coordinator.withObserver(
          (run, sequence, status, message, at) -> {
            try {
              if (!database.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the records");
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            observed.add(sequence + ":" + status);
          });

  @AfterEach
  void cleanUp() {
    database.countDown();
    harness.close();
  }

  RunRequest request() {
    return CoordinatorHarness.twoSteps("prod");
  }

  @Test
  void theFirstDispatchWaitsForNoRecordAndTheRecordsFollowInOrder() {
    Run run = coordinator.start(request());
    coordinator.recordInOrder(run, () -> observed.add("request described"));

    // no record is written yet (the database holds them all), and still the run dispatched
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);
    assertThat(observed).isEmpty();
    assertThat(harness.statuses(run)).containsExactly("pending", "planning", "planned", "applying");

    database.countDown();
    assertThat(coordinator.awaitRecorded("acme", run.id(), Duration.ofSeconds(10))).isTrue();
    // the description comes after the run's first record (whichever transitions the run made
    // before it was queued), and the transitions keep their order
    assertThat(observed).first().isEqualTo("1:PENDING");
    assertThat(observed).containsOnlyOnce("request described");
    assertThat(observed.stream().filter(o -> !o.equals("request described")))
        .containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED", "4:APPLYING");
  }

  @Test
  void theRecordsAreWrittenInOrderWithoutWaitingForTheFirstActionToStart() {
    database.countDown(); // a database that answers at once
    Run run = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);

    // no action has started (no executor here), and still every record is written, in order
    // (docs/adr/0073: nothing holds the lane)
    await().atMost(Duration.ofSeconds(10)).until(() -> observed.size() == 4);
    assertThat(observed).containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED", "4:APPLYING");
    assertThat(run.recording.pending()).isZero();

    ActionDispatched first = harness.dispatched().getFirst();
    coordinator.onActionEvent(
        new EventCodec("/executor", clock, () -> "x1")
            .wrap(
                "acme",
                "prod",
                run.id(),
                1,
                first.address(),
                new ActionStarted(run.id(), first.actionId(), first.address(), "executor-1")));
    // an action starting writes no transition record
    assertThat(observed).containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED", "4:APPLYING");
  }

  @Test
  void aReaderOfTheRecordsDoesNotWaitForTheFirstActionToStart() {
    database.countDown();
    Run run = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);

    assertThat(coordinator.awaitRecorded("acme", run.id(), Duration.ofSeconds(10))).isTrue();
    assertThat(observed).containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED", "4:APPLYING");
  }

  @Test
  void aRunWaitingForApprovalHasItsPlannedRecordWrittenWithoutAnyActionStarting() {
    database.countDown();
    Run run = coordinator.startAwaitingApproval(request());

    await().atMost(Duration.ofSeconds(10)).until(() -> observed.contains("3:PLANNED"));
    assertThat(observed).containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED");
    assertThat(run.summary().status()).isEqualTo("planned");
  }

  @Test
  void aCleanShutdownWritesEveryRecordBeforeItEnds() throws Exception {
    Run run = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);
    Thread closing = Thread.ofPlatform().start(coordinator::close);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> closing.getState() == Thread.State.TIMED_WAITING);
    assertThat(closing.isAlive()).isTrue();
    assertThat(observed).isEmpty();

    database.countDown();
    closing.join(Duration.ofSeconds(10));

    assertThat(closing.isAlive()).isFalse();
    assertThat(observed).containsExactly("1:PENDING", "2:PLANNING", "3:PLANNED", "4:APPLYING");
    assertThat(run.recording.pending()).isZero();
  }

  @Test
  void opensTheRunWithOneStateServiceCallAndUsesWhatItReturned() {
    database.countDown();
    Run run = coordinator.start(request());

    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);

    assertThat(states.openings).containsExactly(run.id() + " token " + locks.lastToken);
    assertThat(harness.dispatched().get(0).runCredential()).isEqualTo("scr_opened");
    assertThat(harness.dispatched().get(0).fencingToken()).isEqualTo(locks.lastToken);
    assertThat(run.summary().status()).isEqualTo("applying");
  }

  /** A state service whose only start-of-run call is {@link #openRun}; the others fail. */
  static final class OneCallStates implements WorkspaceStates {
    final List<String> openings = new CopyOnWriteArrayList<>();

    @Override
    public OpenedRun openRun(String tenant, String workspace, String runId, long fencingToken) {
      openings.add(runId + " token " + fencingToken);
      return new OpenedRun(
          "scr_opened", KnownHostKeys.NONE, "{\"version\":4,\"serial\":0,\"resources\":[]}");
    }

    @Override
    public void registerFencingToken(String tenant, String workspace, long token) {
      throw new IllegalStateException("registered separately: the run must open in one call");
    }

    @Override
    public String read(String tenant, String workspace) {
      throw new IllegalStateException("read separately: the run must open in one call");
    }

    @Override
    public KnownHostKeys knownHostKeys(String tenant, String workspace) {
      throw new IllegalStateException("host keys read separately: the run must open in one call");
    }

    @Override
    public TaintChange changeTaint(
        String tenant,
        String workspace,
        String address,
        boolean tainted,
        long fencingToken,
        String actor) {
      throw new UnsupportedOperationException("not used here");
    }
  }
}
