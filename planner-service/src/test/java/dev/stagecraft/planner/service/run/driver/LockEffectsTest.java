package dev.stagecraft.planner.service.run.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lock part of a run's effect handler, driven by a real {@link RunDriver} and {@link
 * RunDecider}: what the lock service answers becomes the run's commands, and what the run decides
 * (queued, canceled, lost) reaches the lock service — as {@code RunCoordinator.acquireLock} and its
 * heartbeat do it.
 */
class LockEffectsTest {
  static final LockEffects.Holder HOLDER =
      new LockEffects.Holder("acme", "web", "run-1", "stagecraft run run-1", "run:default");

  final FakeLocks locks = new FakeLocks();
  final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  final LockEffects lockEffects = new LockEffects(locks, timer, 3, 10);
  final List<RunEffect> others = new CopyOnWriteArrayList<>();
  final RunDecider decider =
      new RunDecider(Duration.ofHours(1), Duration.ofSeconds(15), Duration.ofMinutes(10));

  final EffectHandler handler =
      (effect, state, reply) -> {
        if (lockEffects.handle(effect, state, HOLDER, reply)) {
          return;
        }
        others.add(effect);
        if (effect instanceof RunEffect.AwaitAdmission) {
          reply.accept(new RunCommand.Admitted());
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
  void aQueuedRunSaysWhereItWaitsThenGetsTheLockAndRenewsIt() throws Exception {
    driver.enqueue(new RunCommand.Start(null));
    locks.answers.put(new WorkspaceLocks.Queued(2));
    locks.answers.put(new WorkspaceLocks.Granted("l-1", 5));

    await().atMost(Duration.ofSeconds(10)).until(() -> driver.state().lock() != null);
    // the first ask did not wait, the next one did (a long poll)
    assertThat(locks.asks)
        .containsExactly("run-1 wait=0 key=run:default", "run-1 wait=10 key=run:default");
    assertThat(driver.state().status()).isEqualTo(RunStatus.QUEUED);
    assertThat(driver.state().message()).isEqualTo(RunMessages.queued(2));
    assertThat(driver.state().lock().fencingToken()).isEqualTo(5);
    await().atMost(Duration.ofSeconds(10)).until(() -> others.contains(new RunEffect.OpenRun(5)));
    assertThat(lockEffects.renewing("run-1")).isTrue();

    driver.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);

    assertThat(driver.state().status()).isEqualTo(RunStatus.CANCELED);
    assertThat(locks.released).containsExactly("l-1");
    assertThat(lockEffects.renewing("run-1")).isFalse();
  }

  @Test
  void aLockGrantedAfterTheRunWasCanceledIsGivenBackAtOnce() throws Exception {
    driver.enqueue(new RunCommand.Start(null));
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.asks.size() == 1); // asking now

    driver.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);
    assertThat(driver.state().status()).isEqualTo(RunStatus.CANCELED);
    assertThat(locks.released).isEmpty(); // it held nothing

    locks.answers.put(new WorkspaceLocks.Granted("l-2", 6)); // the answer was on its way
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.released.contains("l-2"));
    assertThat(driver.state().status()).isEqualTo(RunStatus.CANCELED);
    assertThat(lockEffects.renewing("run-1")).isFalse();
  }

  @Test
  void aRunSupersededInTheQueueEndsCanceledNamingTheNewerRun() {
    driver.enqueue(new RunCommand.Start(null));
    locks.answers.add(new WorkspaceLocks.Superseded("run-9"));

    await().atMost(Duration.ofSeconds(10)).until(() -> driver.state().isTerminal());
    assertThat(driver.state().status()).isEqualTo(RunStatus.CANCELED);
    assertThat(driver.state().message()).isEqualTo(RunMessages.superseded("run-9", "run:default"));
  }

  @Test
  void aRefusedHeartbeatEndsTheRunAndGivesTheLockBack() {
    locks.heartbeatAnswer = false;
    driver.enqueue(new RunCommand.Start(null));
    locks.answers.add(new WorkspaceLocks.Granted("l-3", 7));

    await().atMost(Duration.ofSeconds(10)).until(() -> driver.state().isTerminal());
    assertThat(driver.state().status()).isEqualTo(RunStatus.ERRORED);
    assertThat(driver.state().message()).isEqualTo(RunMessages.heartbeatRefused());
    assertThat(locks.heartbeats).contains("l-3");
    assertThat(locks.released).containsExactly("l-3");
    assertThat(lockEffects.renewing("run-1")).isFalse();
  }

  /**
   * A lock service answering each ask with the next answer the test gives (blocking until then).
   */
  static final class FakeLocks implements WorkspaceLocks {
    final BlockingQueue<Acquisition> answers = new LinkedBlockingQueue<>();
    final List<String> asks = new CopyOnWriteArrayList<>();
    final List<String> released = new CopyOnWriteArrayList<>();
    final List<String> heartbeats = new CopyOnWriteArrayList<>();
    volatile boolean heartbeatAnswer = true;

    @Override
    public Acquisition acquire(
        String tenant,
        String workspace,
        String holder,
        int leaseSeconds,
        int waitSeconds,
        String info) {
      return acquire(tenant, workspace, holder, leaseSeconds, waitSeconds, info, null);
    }

    @Override
    public Acquisition acquire(
        String tenant,
        String workspace,
        String holder,
        int leaseSeconds,
        int waitSeconds,
        String info,
        String coalescingKey) {
      asks.add(holder + " wait=" + waitSeconds + " key=" + coalescingKey);
      try {
        Acquisition next = answers.poll(30, TimeUnit.SECONDS);
        if (next == null) {
          throw new IllegalStateException("the test gave no answer");
        }
        return next;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public boolean heartbeat(String tenant, String workspace, String lockId) {
      heartbeats.add(lockId);
      return heartbeatAnswer;
    }

    @Override
    public void release(String tenant, String workspace, String lockId) {
      released.add(lockId);
    }
  }
}
