package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.planner.service.run.recovery.DispatchedActions;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import dev.stagecraft.planner.service.run.recovery.ResumableRun;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A restarted planner carries on a run that was applying ({@link RunCoordinator#carryOn},
 * docs/adr/0035): the actions it dispatched are awaited, never dispatched again; the rest is
 * planned against the current state and applied. The "before" coordinator makes a real dispatch and
 * is then dropped, as a killed planner is.
 */
class RunCarryOnTest {
  final MovableClock clock = new MovableClock();
  final FakeLocks locks = new FakeLocks();
  final OutcomeStates states = new OutcomeStates();
  CoordinatorHarness before = new CoordinatorHarness(locks, states, clock);
  final CoordinatorHarness after = new CoordinatorHarness(locks, states, clock);

  @AfterEach
  void cleanUp() {
    before.close();
    after.close();
  }

  /** {@link FakeStates} plus the outcomes the state service recorded, by action id. */
  static final class OutcomeStates implements WorkspaceStates {
    final FakeStates delegate = new FakeStates();
    final Map<String, String> outcomes = new ConcurrentHashMap<>();
    volatile int outcomeReads;

    @Override
    public Map<String, String> recordedOutcomes(String tenant, String workspace, String runId) {
      outcomeReads++;
      return Map.copyOf(outcomes);
    }

    @Override
    public KnownHostKeys knownHostKeys(String tenant, String workspace) {
      return delegate.knownHostKeys(tenant, workspace);
    }

    @Override
    public String read(String tenant, String workspace) {
      return delegate.read(tenant, workspace);
    }

    @Override
    public void registerFencingToken(String tenant, String workspace, long token) {
      delegate.registerFencingToken(tenant, workspace, token);
    }

    @Override
    public TaintChange changeTaint(
        String tenant,
        String workspace,
        String address,
        boolean tainted,
        long fencingToken,
        String actor) {
      return delegate.changeTaint(tenant, workspace, address, tainted, fencingToken, actor);
    }
  }

  static RunRequest request(Long expectedSerial) {
    return new RunRequest(
        "acme",
        "prod",
        Map.of("main.tf", RunCoordinatorTest.TWO_STEPS),
        Map.of(),
        false,
        List.of(),
        expectedSerial,
        null,
        "tester",
        10);
  }

  /** The run started on the "before" coordinator. */
  Run beforeRun;

  /** Starts a run on the "before" coordinator and returns its first dispatch (db). */
  ActionDispatched dispatchedBeforeTheRestart(RunRequest request) {
    Run run = before.coordinator.start(request);
    beforeRun = run;
    await().atMost(Duration.ofSeconds(10)).until(() -> before.dispatched().size() == 1);
    assertThat(run.summary().status()).isEqualTo("applying");
    return before.dispatched().get(0);
  }

  Run carryOn(ActionDispatched db, RunRequest request, boolean approved) {
    return carryOn(db, request, approved, null);
  }

  Run carryOn(
      ActionDispatched db,
      RunRequest request,
      boolean approved,
      Map<String, String> approvedChanges) {
    return carryOn(db, request, approved, approvedChanges, false);
  }

  /**
   * @param taken whether an executor had taken db's dispatch before the restart (docs/adr/0056)
   */
  Run carryOn(
      ActionDispatched db,
      RunRequest request,
      boolean approved,
      Map<String, String> approvedChanges,
      boolean taken) {
    return after.coordinator.carryOn(
        new ResumableRun(
            db.runId(),
            request,
            approved,
            clock.instant(),
            5,
            beforeRun.summary().planDigest(), // as recorded
            null,
            approvedChanges),
        List.of(new DispatchedActions.Dispatched(db, clock.instant(), taken)),
        RestartRecovery.carriedOnMessage("planner-1", RunStatus.APPLYING));
  }

  /** The state after db was recorded: db as dispatched, serial 1. */
  static String stateWithDb(ActionDispatched db) {
    return EventCodec.mapper()
        .valueToTree(
            Map.of(
                "version",
                4,
                "serial",
                1,
                "lineage",
                "l-1",
                "resources",
                List.of(
                    Map.of(
                        "mode",
                        "managed",
                        "type",
                        "stateful_provisioning",
                        "name",
                        "db",
                        "instances",
                        List.of(Map.of("schema_version", 0, "attributes", db.attributes()))))))
        .toString();
  }

  List<String> messages(CoordinatorHarness h, Run run) {
    return h.published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
        .filter(e -> run.id().equals(e.runid()))
        .map(e -> EventCodec.data(e, RunTransitioned.class).message())
        .toList();
  }

  static String status(Run run) {
    return run.summary().status();
  }

  @Test
  void aRunningActionIsAwaitedNotDispatchedAgainThenTheRestIsPlannedAndApplied() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));

    Run run = carryOn(db, request(null), false);

    await().atMost(Duration.ofSeconds(10)).until(() -> status(run).equals("applying"));
    assertThat(run.id()).isEqualTo(db.runId());
    assertThat(locks.holders.get(locks.holders.size() - 1))
        .as("the lock is asked for with the run id as holder (the same lease back)")
        .isEqualTo(db.runId());
    assertThat(run.summary().message())
        .startsWith("Carried on: ")
        .contains("1 action(s) this run had dispatched before its planner instance stopped, 0 had")
        .contains("1 were still running (stateful_provisioning.db)");
    assertThat(after.dispatched()).as("nothing dispatched while db runs").isEmpty();
    assertThat(states.outcomeReads).isEqualTo(1);

    // the executor finishes db; the state service records it
    states.delegate.json = stateWithDb(db);
    after.stateRecorded("acme", "prod", db, "succeeded", null, 1);

    await().atMost(Duration.ofSeconds(10)).until(() -> after.dispatched().size() == 1);
    ActionDispatched app = after.dispatched().get(0);
    assertThat(app.address()).isEqualTo("stateful_provisioning.app");
    assertThat(app.actionId()).isNotEqualTo(db.actionId());
    after.stateRecorded("acme", "prod", app, "succeeded", null, 2);

    await().atMost(Duration.ofSeconds(10)).until(() -> status(run).equals("applied"));
    assertThat(after.dispatched())
        .extracting(ActionDispatched::address)
        .containsExactly("stateful_provisioning.app");
    assertThat(after.statuses(run)).containsExactly("pending", "applying", "applying", "applied");
    // db, dispatched before the restart, counts with app, the rest's plan
    assertThat(run.summary().message())
        .startsWith("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.")
        .contains(
            "Of them, 1 added, 0 changed, 0 destroyed by the actions dispatched before its planner"
                + " instance stopped.");
  }

  @Test
  void anActionThatFinishedWhileThePlannerWasDownCountsAndOnlyTheRestIsDispatched() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    states.outcomes.put(db.actionId(), "succeeded");
    states.delegate.json = stateWithDb(db);

    Run run = carryOn(db, request(null), false);

    await().atMost(Duration.ofSeconds(10)).until(() -> after.dispatched().size() == 1);
    assertThat(after.dispatched().get(0).address()).isEqualTo("stateful_provisioning.app");
    assertThat(messages(after, run))
        .anySatisfy(
            m -> assertThat(m).contains("1 had finished (stateful_provisioning.db: succeeded)"));
  }

  @Test
  void aDispatchedActionThatFailedEndsTheRunErroredAndNothingMoreIsDispatched() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    states.outcomes.put(db.actionId(), "failed");

    Run run = carryOn(db, request(null), false);

    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("errored");
    assertThat(run.summary().message())
        .contains("Apply failed: stateful_provisioning.db")
        .contains("nothing was run twice");
    assertThat(after.dispatched()).isEmpty();
    assertThat(locks.released).isNotEmpty();
  }

  @Test
  void anActionNoExecutorReportsOnIsReportedInterruptedOnlyAfterTheDispatchLease() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    Run run = carriedOnWithLeases(db, false);

    clock.advance(Duration.ofMinutes(5));
    after.coordinator.checkLeases();
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class))
        .as("within the dispatch lease an executor may still start it")
        .isEmpty();

    clock.advance(Duration.ofMinutes(6));
    after.coordinator.checkLeases();
    List<EventEnvelope> reports =
        after.published.stream()
            .filter(e -> e.type().equals("dev.stagecraft.action.finished"))
            .toList();
    assertThat(reports).hasSize(1);
    assertThat(reports.get(0).id()).isEqualTo("interrupted-" + db.actionId());
    ActionFinished interrupted = EventCodec.data(reports.get(0), ActionFinished.class);
    assertThat(interrupted.outcome()).isEqualTo(ActionFinished.INTERRUPTED);
    assertThat(interrupted.error())
        .contains("before its planner instance stopped")
        .contains("tainted");

    after.stateRecorded("acme", "prod", db, "failed", interrupted.error(), 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("errored");
    assertThat(after.dispatched()).isEmpty();
  }

  @Test
  void anActionAnExecutorTookBeforeTheRestartIsReportedInterruptedAfterTheActionLeaseOfSilence() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    Run run = carriedOnWithLeases(db, true);

    clock.advance(Duration.ofSeconds(10));
    after.coordinator.checkLeases();
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class))
        .as("within the action lease its executor may still report")
        .isEmpty();

    // the executor died with the planner: no heartbeat comes, and no executor will be given the
    // dispatch again, so the run does not wait for the 10-minute dispatch lease
    clock.advance(Duration.ofSeconds(6));
    after.coordinator.checkLeases();
    List<ActionFinished> reports =
        after.ofType("dev.stagecraft.action.finished", ActionFinished.class);
    assertThat(reports).hasSize(1);
    assertThat(reports.get(0).outcome()).isEqualTo(ActionFinished.INTERRUPTED);
    assertThat(reports.get(0).error())
        .contains("taken by an executor before its planner instance stopped")
        .contains("15 s")
        .contains("tainted");

    after.stateRecorded("acme", "prod", db, "failed", reports.get(0).error(), 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("errored");
    assertThat(after.dispatched()).isEmpty();
  }

  @Test
  void aTakenActionWhoseExecutorHeartbeatsAfterTheRestartStaysAliveAndIsThenNamed() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    Run run = carriedOnWithLeases(db, true);

    for (int i = 0; i < 3; i++) {
      clock.advance(Duration.ofSeconds(10));
      after.coordinator.onActionEvent(heartbeat(db, "executor-9"));
      after.coordinator.checkLeases();
    }
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class)).isEmpty();

    clock.advance(Duration.ofSeconds(16));
    after.coordinator.checkLeases();
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class))
        .singleElement()
        .satisfies(f -> assertThat(f.error()).contains("executor-9 stopped reporting"));
  }

  @Test
  void aTakenActionHeardFromByALogLineOnlyIsThenReportedAsOneWhoseExecutorStoppedReporting() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    Run run = carriedOnWithLeases(db, true);

    clock.advance(Duration.ofSeconds(10));
    after.coordinator.onActionEvent(
        new EventCodec("/executor", clock, () -> "l" + after.ids.incrementAndGet())
            .wrap(
                "acme",
                "prod",
                db.runId(),
                1,
                db.address(),
                new ActionLog(db.runId(), db.actionId(), db.address(), 0, "stdout", "alive")));
    clock.advance(Duration.ofSeconds(10));
    after.coordinator.checkLeases();
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class)).isEmpty();

    clock.advance(Duration.ofSeconds(6));
    after.coordinator.checkLeases();
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.error())
                    .contains("stopped reporting")
                    .doesNotContain("nothing was heard"));
  }

  /**
   * db's run carried on (applying) with an action lease of 15 s and a dispatch lease of 10 min;
   * {@code taken}: an executor had taken db's dispatch before the restart.
   */
  Run carriedOnWithLeases(ActionDispatched db, boolean taken) {
    after.coordinator.withLeases(
        Duration.ofSeconds(15), Duration.ofMinutes(10), Duration.ofHours(1));
    Run run = carryOn(db, request(null), false, null, taken);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(run).equals("applying"));
    return run;
  }

  EventEnvelope heartbeat(ActionDispatched db, String executor) {
    return new EventCodec("/executor", clock, () -> "h" + after.ids.incrementAndGet())
        .wrap(
            "acme",
            "prod",
            db.runId(),
            1,
            db.address(),
            new ActionHeartbeat(
                db.runId(), db.actionId(), db.address(), executor, 0, "local-exec", null));
  }

  @Test
  void aLiveExecutorsHeartbeatsKeepACarriedActionAliveAndItsSilenceInterruptsIt() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    Run run = carriedOnWithLeases(db, false);

    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(10));
      after.coordinator.onActionEvent(heartbeat(db, "executor-7"));
      after.coordinator.checkLeases();
    }
    assertThat(after.ofType("dev.stagecraft.action.finished", ActionFinished.class)).isEmpty();

    clock.advance(Duration.ofSeconds(16));
    after.coordinator.checkLeases();
    List<ActionFinished> reports =
        after.ofType("dev.stagecraft.action.finished", ActionFinished.class);
    assertThat(reports).hasSize(1);
    assertThat(reports.get(0).error()).contains("executor-7 stopped reporting");
    assertThat(status(run)).isEqualTo("applying");
  }

  @Test
  void aCanceledCarriedOnRunStopsItsRunningActionAndEndsCanceledOnceItsOutcomeIsRecorded() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(null));
    Run run = carryOn(db, request(null), false);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(run).equals("applying"));

    after.coordinator.cancel("acme", run.id(), "deployer@acme");

    assertThat(after.published)
        .as("executors are asked to stop the run's running actions")
        .anySatisfy(e -> assertThat(e.type()).isEqualTo("dev.stagecraft.run.cancel-requested"));
    assertThat(status(run)).as("db still runs").isEqualTo("applying");
    after.stateRecorded("acme", "prod", db, "failed", "canceled", 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("canceled");
    assertThat(after.dispatched()).isEmpty();
  }

  @Test
  void anApprovedRunWithoutRecordedChangesAndChangesLeftEndsErroredWithoutDispatching() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(0L));

    assertThat(erroredAfterTheRestart(db, null))
        .contains("approved as a whole")
        .contains("recorded no copy of each change");
  }

  /**
   * Carries on the approved run whose db the "before" coordinator dispatched, db having succeeded,
   * with {@code approved} as the recorded changes; asserts that it ends errored without dispatching
   * anything and returns its message.
   */
  String erroredAfterTheRestart(ActionDispatched db, Map<String, String> approved) {
    states.outcomes.put(db.actionId(), "succeeded");
    states.delegate.json = stateWithDb(db);

    Run run = carryOn(db, request(0L), false, approved);

    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("errored");
    assertThat(after.dispatched()).isEmpty();
    return run.summary().message();
  }

  @Test
  void anApprovedRunIsRecordedWithWhatEachOfItsChangesDoes() {
    dispatchedBeforeTheRestart(request(0L));
    assertThat(beforeRun.approvedChanges())
        .as("the CLI's bound serial makes the plan approved as a whole")
        .containsOnlyKeys("stateful_provisioning.db", "stateful_provisioning.app");
  }

  @Test
  void anAutoApplyRunRecordsNoApprovedChanges() {
    dispatchedBeforeTheRestart(request(null));
    assertThat(beforeRun.approvedChanges()).isNull();
  }

  @Test
  void theRestOfAnApprovedPlanIsAppliedAfterTheRestartWhenItIsWhatWasApproved() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(0L));
    Map<String, String> approved = beforeRun.approvedChanges();
    states.outcomes.put(db.actionId(), "succeeded");
    states.delegate.json = stateWithDb(db);

    Run run = carryOn(db, request(0L), false, approved);

    await().atMost(Duration.ofSeconds(10)).until(() -> after.dispatched().size() == 1);
    ActionDispatched app = after.dispatched().get(0);
    assertThat(app.address()).isEqualTo("stateful_provisioning.app");
    assertThat(run.approvedChanges()).as("kept for a second restart").isEqualTo(approved);
    assertThat(run.summary().planDigest())
        .as("the approved plan's digest, not the rest's")
        .isEqualTo(beforeRun.summary().planDigest());
    synchronized (run) {
      assertThat(run.plan.digest()).as("the rest's plan").isNotEqualTo(run.summary().planDigest());
    }
    after.stateRecorded("acme", "prod", app, "succeeded", null, 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("applied");
    assertThat(after.dispatched())
        .extracting(ActionDispatched::address)
        .containsExactly("stateful_provisioning.app");
  }

  @Test
  void theRestOfAnApprovedPlanThatWouldDoSomethingElseEndsErroredNamingIt() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(0L));
    Map<String, String> approved = new java.util.HashMap<>(beforeRun.approvedChanges());
    // approved something else: another state_key
    approved.put(
        "stateful_provisioning.app",
        approved.get("stateful_provisioning.app").replace("\"v1\"", "\"v0\""));

    assertThat(erroredAfterTheRestart(db, approved))
        .contains("planned differently from the approved plan: stateful_provisioning.app");
  }

  @Test
  void theRestOfAnApprovedPlanWithAChangeThatWasNotApprovedEndsErroredNamingIt() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(0L));
    Map<String, String> approved = new java.util.HashMap<>(beforeRun.approvedChanges());
    approved.remove("stateful_provisioning.app");
    approved.put("stateful_provisioning.web", approved.get("stateful_provisioning.db"));

    assertThat(erroredAfterTheRestart(db, approved))
        .contains("not in the approved plan: stateful_provisioning.app")
        .contains("approved but no longer planned: stateful_provisioning.web");
  }

  @Test
  void aCarriedOnRunWhoseDispatchesAllSucceededAndNothingRemainsIsApplied() {
    ActionDispatched db = dispatchedBeforeTheRestart(request(0L));
    Instant at = clock.instant();
    states.outcomes.put(db.actionId(), "succeeded");
    String config =
        """
        resource "stateful_provisioning" "db" {
          state_key = "v1"
          provisioner "local-exec" {
            command = "migrate"
          }
        }
        """;
    RunRequest onlyDb =
        new RunRequest(
            "acme",
            "prod",
            Map.of("main.tf", config),
            Map.of(),
            false,
            List.of(),
            0L,
            null,
            "tester",
            10);
    states.delegate.json = stateWithDb(db);

    Run run =
        after.coordinator.carryOn(
            new ResumableRun(db.runId(), onlyDb, true, at, 5, null, null),
            List.of(new DispatchedActions.Dispatched(db, at)),
            "resumed");

    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(status(run)).isEqualTo("applied");
    assertThat(run.summary().message())
        .contains("Resources: 1 added, 0 changed, 0 destroyed.")
        .contains("1 action(s) applied")
        .contains("nothing remained");
    assertThat(after.dispatched()).isEmpty();
  }
}
