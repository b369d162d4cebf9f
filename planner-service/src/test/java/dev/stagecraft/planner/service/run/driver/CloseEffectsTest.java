package dev.stagecraft.planner.service.run.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end of a run in its effect handler, driven by a real {@link RunDriver} and {@link RunDecider}
 * with the lock part: the run's files deleted and its lease no longer renewed, however it ends — as
 * {@code RunCoordinator.finish} does it.
 */
class CloseEffectsTest {
  final LockEffectsTest.FakeLocks locks = new LockEffectsTest.FakeLocks();
  final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  final LockEffects lockEffects = new LockEffects(locks, timer, 30, 10);
  final CloseEffects closeEffects = new CloseEffects(lockEffects);
  final AtomicReference<Path> filesDir = new AtomicReference<>();
  final List<RunEffect> others = new CopyOnWriteArrayList<>();
  final RunDecider decider =
      new RunDecider(Duration.ofHours(1), Duration.ofSeconds(15), Duration.ofMinutes(10));

  final EffectHandler handler =
      (effect, state, reply) -> {
        if (lockEffects.handle(effect, state, LockEffectsTest.HOLDER, reply)
            || closeEffects.handle(effect, state, () -> filesDir.getAndSet(null))) {
          return;
        }
        others.add(effect);
        switch (effect) {
          case RunEffect.AwaitAdmission a -> reply.accept(new RunCommand.Admitted());
          case RunEffect.OpenRun o -> reply.accept(new RunCommand.Opened(null));
          default -> {}
        }
      };

  final RunDriver driver =
      RunDriver.start(
          RunState.initial("run-1", RunSettings.autoApply("acme", "web")), decider, handler);

  @AfterEach
  void stop() {
    driver.close();
    timer.shutdownNow();
  }

  @Test
  void aCanceledRunHasItsFilesDeletedAndItsLeaseNoLongerRenewed(@TempDir Path tmp)
      throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("run-1"));
    Files.writeString(dir.resolve("deploy.sh"), "echo hi");
    filesDir.set(dir);
    locks.answers.add(new WorkspaceLocks.Granted("l-1", 5));
    driver.enqueue(new RunCommand.Start(null));
    await().atMost(Duration.ofSeconds(10)).until(() -> others.contains(new RunEffect.Plan()));
    assertThat(lockEffects.renewing("run-1")).isTrue();
    assertThat(dir).exists();

    driver.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);

    assertThat(driver.state().status()).isEqualTo(RunStatus.CANCELED);
    assertThat(dir).doesNotExist();
    assertThat(lockEffects.renewing("run-1")).isFalse();
    assertThat(others).contains(new RunEffect.Close());
  }

  @Test
  void aRunCanceledBeforeItHeldTheLockHasItsFilesDeletedToo(@TempDir Path tmp) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("run-1"));
    filesDir.set(dir);
    driver.enqueue(new RunCommand.Start(null));
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.asks.size() == 1);

    driver.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);

    assertThat(dir).doesNotExist();
    assertThat(filesDir.get()).isNull(); // taken once: a second close deletes nothing
    locks.answers.add(new WorkspaceLocks.Granted("l-9", 9)); // the pending ask answered late
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.released.contains("l-9"));
    assertThat(lockEffects.renewing("run-1")).isFalse();
  }
}
