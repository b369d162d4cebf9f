package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A planner forgets the runs it drove once they ended more than the retention ago and their records
 * are written, so its memory holds its active and recently ended runs, not every run since it
 * started (before: every run stayed in memory for the life of the process).
 */
class EndedRunRetentionTest {
  final MovableClock clock = new MovableClock();
  final FakeLocks locks = new FakeLocks();
  final FakeStates states = new FakeStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final RunCoordinator coordinator =
      harness.coordinator.withEndedRunRetention(Duration.ofMinutes(2));

  @AfterEach
  void close() {
    harness.close();
  }

  /** Starts a run and waits until it dispatched its first action (it is applying). */
  Run startApplying(String workspace) {
    Run run = coordinator.start(CoordinatorHarness.twoSteps(workspace));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> harness.dispatched().stream().anyMatch(a -> a.runId().equals(run.id())));
    return run;
  }

  /** Cancels a run whose dispatched action was not started: it ends {@code canceled} at once. */
  void end(Run run) {
    coordinator.cancel("acme", run.id(), "tester");
    assertThat(run.summary().status()).isEqualTo("canceled");
  }

  @Test
  void anEndedRunIsForgottenOnceTheRetentionPassedAndAnActiveOneNever() {
    Run ended = startApplying("prod");
    Run active = startApplying("staging");
    end(ended);

    clock.advance(Duration.ofMinutes(1));
    coordinator.forgetEnded();
    assertThat(coordinator.find("acme", ended.id())).as("within the retention").isPresent();

    clock.advance(Duration.ofMinutes(1));
    // the canceled run's last records are written on its lane in the background, and a run is
    // only forgotten once they are (see the next test): check again until then
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              coordinator.forgetEnded();
              assertThat(coordinator.find("acme", ended.id())).as("after the retention").isEmpty();
            });
    assertThat(coordinator.runsOf("acme")).extracting(Run::id).containsExactly(active.id());

    clock.advance(Duration.ofDays(1));
    coordinator.forgetEnded();
    assertThat(coordinator.find("acme", active.id()))
        .as("a run that has not ended, however old")
        .isPresent();
    // an API read of the forgotten run now waits for nothing and goes to the store
    assertThat(coordinator.awaitRecorded("acme", ended.id(), Duration.ZERO)).isTrue();
  }

  @Test
  void anEndedRunWhoseRecordsAreNotAllWrittenIsKeptUntilTheyAre() throws Exception {
    CountDownLatch recordingMayGoOn = new CountDownLatch(1);
    CountDownLatch terminalRecordStarted = new CountDownLatch(1);
    coordinator.withObserver(
        (run, sequence, status, message, at) -> {
          if (status.isTerminal()) {
            terminalRecordStarted.countDown();
            try {
              recordingMayGoOn.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    Run run = startApplying("prod");
    end(run);
    assertThat(terminalRecordStarted.await(10, TimeUnit.SECONDS)).isTrue();

    clock.advance(Duration.ofMinutes(3));
    coordinator.forgetEnded();
    assertThat(coordinator.find("acme", run.id()))
        .as("its terminal transition is still being recorded")
        .isPresent();

    recordingMayGoOn.countDown();
    assertThat(coordinator.awaitRecorded("acme", run.id(), Duration.ofSeconds(10))).isTrue();
    coordinator.forgetEnded();
    assertThat(coordinator.find("acme", run.id())).isEmpty();
  }

  @Test
  void aNegativeRetentionIsRefusedNamingTheSetting() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> coordinator.withEndedRunRetention(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STAGECRAFT_PLANNER_ENDED_RUN_RETENTION");
  }
}
