package dev.stagecraft.planner.service.run.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.admission.TenantAdmission;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admission part of the runs' effect handler, driven by real {@link RunDriver}s and a {@link
 * RunDecider}: a run of a tenant at its cap waits {@code queued} with the reason, and gets the slot
 * of a run that ends — as {@code RunCoordinator.awaitAdmission} does it.
 */
class AdmissionEffectsTest {
  final AdmissionEffects admission = new AdmissionEffects(new TenantAdmission(1, Map.of(), 0));
  final RunDecider decider =
      new RunDecider(Duration.ofHours(1), Duration.ofSeconds(15), Duration.ofMinutes(10));
  final List<String> lockAsks = new CopyOnWriteArrayList<>();
  final List<RunDriver> drivers = new CopyOnWriteArrayList<>();

  RunDriver run(String id) {
    EffectHandler handler =
        (effect, state, reply) -> {
          if (!admission.handle(effect, state, reply) && effect instanceof RunEffect.RequestLock) {
            lockAsks.add(state.runId());
          }
        };
    RunDriver driver =
        RunDriver.start(
            RunState.initial(id, RunSettings.autoApply("acme", "web")), decider, handler);
    drivers.add(driver);
    driver.enqueue(new RunCommand.Start(null));
    return driver;
  }

  @AfterEach
  void stop() {
    drivers.forEach(RunDriver::close);
  }

  @Test
  void aRunOfATenantAtItsCapWaitsQueuedAndGetsTheSlotOfARunThatEnds() throws Exception {
    RunDriver first = run("run-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> lockAsks.contains("run-1"));

    RunDriver second = run("run-2");
    await().atMost(Duration.ofSeconds(10)).until(() -> second.state().status() == RunStatus.QUEUED);
    assertThat(second.state().message()).isEqualTo("waiting: tenant has 1 active runs (cap 1)");
    assertThat(lockAsks).containsExactly("run-1"); // the second does not ask for the lock yet
    assertThat(admission.waits("run-2")).isTrue();

    first.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> lockAsks.contains("run-2"));
    assertThat(admission.waits("run-2")).isFalse();
  }

  @Test
  void aRunCanceledWhileItWaitsForASlotLeavesTheQueue() throws Exception {
    RunDriver first = run("run-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> lockAsks.contains("run-1"));
    RunDriver second = run("run-2");
    await().atMost(Duration.ofSeconds(10)).until(() -> second.state().status() == RunStatus.QUEUED);

    second.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);
    assertThat(admission.waits("run-2")).isFalse();
    first.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);

    // the slot goes to a new run, not to the canceled one
    run("run-3");
    await().atMost(Duration.ofSeconds(10)).until(() -> lockAsks.contains("run-3"));
    assertThat(lockAsks).containsExactly("run-1", "run-3");
    assertThat(second.state().status()).isEqualTo(RunStatus.CANCELED);
  }
}
