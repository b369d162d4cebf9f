package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Events about a run must come as that run's: another tenant's or workspace's event naming the run,
 * or one naming an action of another run, is refused (the consumer dead-letters it with the reason)
 * and changes nothing.
 */
class EventOriginTest {
  final MovableClock clock = new MovableClock();
  final CoordinatorHarness harness =
      new CoordinatorHarness(new FakeLocks(), new FakeStates(), clock);
  final RunCoordinator coordinator = harness.coordinator;
  final EventCodec executor =
      new EventCodec("/executor", clock, () -> "x" + harness.ids.incrementAndGet());

  @AfterEach
  void close() {
    harness.close();
  }

  ActionDispatched firstDispatch(Run run) {
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);
    return harness.dispatched().getFirst();
  }

  @Test
  void aStateRecordedEventOfAnotherTenantNamingTheRunIsRefusedAndDispatchesNothing() {
    Run run = coordinator.start(CoordinatorHarness.twoSteps("prod"));
    ActionDispatched db = firstDispatch(run);

    assertThatThrownBy(() -> harness.stateRecorded("intruder", "prod", db, "succeeded", null, 2))
        .isInstanceOf(MalformedEventException.class)
        .hasMessageContaining("came as tenant intruder, workspace prod, but run " + run.id())
        .hasMessageContaining("belongs to tenant acme, workspace prod");
    assertThatThrownBy(() -> harness.stateRecorded("acme", "staging", db, "succeeded", null, 2))
        .isInstanceOf(MalformedEventException.class);

    assertThat(harness.dispatched()).hasSize(1); // the app step still waits for db
    harness.stateRecorded("acme", "prod", db, "succeeded", null, 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 2);
  }

  @Test
  void anActionEventOfAnotherWorkspaceOrNamingAnotherRunsActionIsRefused() {
    Run run = coordinator.start(CoordinatorHarness.twoSteps("prod"));
    ActionDispatched db = firstDispatch(run);

    assertThatThrownBy(
            () ->
                coordinator.onActionEvent(
                    executor.wrap(
                        "acme",
                        "staging",
                        run.id(),
                        1,
                        db.address(),
                        new ActionLog(run.id(), db.actionId(), db.address(), 0, "stdout", "x"))))
        .isInstanceOf(MalformedEventException.class)
        .hasMessageContaining("workspace staging");
    assertThatThrownBy(
            () ->
                coordinator.onActionEvent(
                    executor.wrap(
                        "acme",
                        "prod",
                        run.id(),
                        1,
                        db.address(),
                        new ActionStarted(run.id(), "run-other/x.y", db.address(), "ex"))))
        .isInstanceOf(MalformedEventException.class)
        .hasMessageContaining("not an action of run " + run.id());
  }
}
