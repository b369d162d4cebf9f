package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every dispatched step has a timeout: its own {@code timeout}, else the run's (the workspace's)
 * step timeout, so that no step can hold an executor slot forever.
 */
class StepTimeoutsTest {
  static final String STEPS =
      """
      resource "terraform_data" "x" {
        provisioner "local-exec" {
          command = "echo with its own"
          timeout = "90s"
        }
        provisioner "local-exec" {
          command = "echo without"
        }
      }
      """;

  final CoordinatorHarness harness =
      new CoordinatorHarness(new FakeLocks(), new FakeStates(), new MovableClock());

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void aStepWithoutATimeoutOfItsOwnGetsTheRunsStepTimeout() {
    harness.coordinator.start(
        CoordinatorHarness.request("acme", "prod", STEPS).withStepTimeoutSeconds(1800));
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);

    ActionDispatched x = harness.dispatched().getFirst();
    assertThat(x.provisioners())
        .extracting(ProvisionerStep::timeoutSeconds)
        .containsExactly(90, 1800);
  }

  @Test
  void aRequestWithoutAWorkspaceSettingHasTheOneHourDefault() {
    harness.coordinator.start(CoordinatorHarness.request("acme", "prod", STEPS));
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == 1);

    assertThat(harness.dispatched().getFirst().provisioners())
        .extracting(ProvisionerStep::timeoutSeconds)
        .containsExactly(90, RunRequest.DEFAULT_STEP_TIMEOUT_SECONDS);
  }
}
