package dev.stagecraft.planner.service.run.driver;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stagecraft.planner.apply.PlannedStep;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.Decision;
import dev.stagecraft.planner.service.run.lifecycle.PlanInfo;
import dev.stagecraft.planner.service.run.lifecycle.Refusal;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The per-run mailbox: one order, one command at a time, failures as commands, a stop. */
class RunDriverTest {
  static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  static final RunSettings AUTO = RunSettings.autoApply("acme", "web");

  final RunDecider decider =
      new RunDecider(Duration.ofHours(1), Duration.ofSeconds(15), Duration.ofMinutes(10));
  final List<RunDriver> drivers = new ArrayList<>();

  @AfterEach
  void stopDrivers() {
    drivers.forEach(RunDriver::close);
  }

  RunDriver start(EffectHandler handler) {
    RunDriver driver = RunDriver.start(RunState.initial("run-1", AUTO), decider, handler);
    drivers.add(driver);
    return driver;
  }

  /** Records every effect, the threads it ran on and how many ran at once. */
  static class RecordingHandler implements EffectHandler {
    final List<RunEffect> handled = Collections.synchronizedList(new ArrayList<>());
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    final AtomicInteger active = new AtomicInteger();
    final AtomicInteger maxActive = new AtomicInteger();

    @Override
    public void handle(RunEffect effect, RunState state, Consumer<RunCommand> reply)
        throws Exception {
      maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
      try {
        threads.add(Thread.currentThread().getName());
        Thread.yield(); // give another caller a chance to overlap, were that possible
        handled.add(effect);
        react(effect, reply);
      } finally {
        active.decrementAndGet();
      }
    }

    void react(RunEffect effect, Consumer<RunCommand> reply) throws Exception {}

    List<Long> recordedSequences() {
      synchronized (handled) {
        return handled.stream()
            .filter(RunEffect.RecordTransition.class::isInstance)
            .map(e -> ((RunEffect.RecordTransition) e).transition().sequence())
            .toList();
      }
    }

    List<String> recordedMessages() {
      synchronized (handled) {
        return handled.stream()
            .filter(RunEffect.RecordTransition.class::isInstance)
            .map(e -> ((RunEffect.RecordTransition) e).transition().message())
            .toList();
      }
    }
  }

  @Test
  void commandsEnqueuedFromManyThreadsAreDecidedInOneOrderOneAtATime() throws Exception {
    RecordingHandler handler = new RecordingHandler();
    RunDriver driver = start(handler);
    driver.enqueue(new RunCommand.Start(null));
    driver.enqueue(new RunCommand.Admitted());
    int threads = 8;
    int each = 25;
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Decision>> answers = Collections.synchronizedList(new ArrayList<>());
    List<Thread> senders = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int base = (t + 1) * 1000;
      senders.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      return;
                    }
                    // every position differs: every command moves the run (queued again)
                    for (int i = 1; i <= each; i++) {
                      answers.add(driver.enqueue(new RunCommand.LockQueued(base + i)));
                    }
                  }));
    }
    go.countDown();
    for (Thread sender : senders) {
      sender.join();
    }
    CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();

    int transitions = 1 + threads * each;
    assertEquals(1, handler.maxActive.get(), "effects were handled concurrently");
    assertEquals(Set.of("run-run-1"), handler.threads);
    List<Long> expected = new ArrayList<>();
    for (long s = 1; s <= transitions; s++) {
      expected.add(s);
    }
    assertEquals(expected, handler.recordedSequences(), "one order, no gap, no repeat");
    assertEquals(transitions, driver.state().sequence());
    // each sender's commands were decided in the order it sent them
    List<String> messages = handler.recordedMessages().subList(1, transitions);
    for (int t = 0; t < threads; t++) {
      int base = (t + 1) * 1000;
      List<Integer> positions =
          messages.stream()
              .map(m -> Integer.parseInt(m.replaceAll("\\D", "")))
              .filter(p -> p > base && p <= base + each)
              .toList();
      List<Integer> inOrder = new ArrayList<>(positions);
      Collections.sort(inOrder);
      assertEquals(inOrder, positions);
      assertEquals(each, positions.size());
    }
  }

  /** What the run's thread logs carries the run's ids (JSON logs, docs/operations.md "Logs"). */
  @Test
  void effectsAreHandledWithTheRunsIdsInTheLoggingContext() {
    List<Map<String, String>> contexts = Collections.synchronizedList(new ArrayList<>());
    RecordingHandler handler =
        new RecordingHandler() {
          @Override
          void react(RunEffect effect, Consumer<RunCommand> reply) {
            contexts.add(MDC.getCopyOfContextMap());
          }
        };
    RunDriver driver = start(handler);
    driver.enqueue(new RunCommand.Start(null)).join();

    assertFalse(contexts.isEmpty());
    for (Map<String, String> context : contexts) {
      assertEquals(Map.of("tenant", "acme", "workspace", "web", "run", "run-1"), context);
    }
    assertEquals(null, MDC.get("run"), "the caller's thread is left alone");
  }

  @Test
  void aFailedEffectIsDecidedAsACommandAndTheDriverGoesOn() {
    RecordingHandler handler =
        new RecordingHandler() {
          final AtomicInteger publishes = new AtomicInteger();

          @Override
          void react(RunEffect effect, Consumer<RunCommand> reply) {
            if (effect instanceof RunEffect.PublishTransition && publishes.incrementAndGet() == 1) {
              throw new IllegalStateException("broker down");
            }
            if (effect instanceof RunEffect.OpenRun) {
              throw new IllegalStateException("state service down");
            }
          }
        };
    RunDriver driver = start(handler);
    driver.enqueue(new RunCommand.Start(null));
    driver.enqueue(new RunCommand.Admitted());
    // the first publication failed; the run still queues
    driver.enqueue(new RunCommand.LockQueued(1)).join();
    assertEquals(RunStatus.QUEUED, driver.state().status());
    driver.enqueue(new RunCommand.LockGranted("lock-1", 7));

    RunState ended =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> driver.ended().getNow(null), s -> s != null);
    assertEquals(RunStatus.ERRORED, ended.status());
    assertEquals("Run failed: state service down", ended.message());
    assertTrue(handler.handled.contains(new RunEffect.ReleaseLock("lock-1")));
    assertEquals(new RunEffect.Close(), handler.handled.getLast());
  }

  @Test
  void theDriverStopsAfterATerminalStateAndLateCommandsAreRefused() {
    RecordingHandler handler = new RecordingHandler();
    RunDriver driver = start(handler);
    driver.enqueue(new RunCommand.Start(null));
    driver.enqueue(new RunCommand.Admitted());
    driver.enqueue(new RunCommand.LockQueued(1));
    driver.enqueue(new RunCommand.CancelRequested("alice"));

    await().atMost(Duration.ofSeconds(10)).until(() -> !driver.isRunning());
    assertEquals(RunStatus.CANCELED, driver.ended().join().status());

    // the grant was on its way while the run was canceled: refused, and the lock given back
    Decision late = driver.enqueue(new RunCommand.LockGranted("lock-late", 3)).join();
    assertEquals(Refusal.ALREADY_ENDED, late.refusal().orElseThrow());
    assertTrue(handler.handled.contains(new RunEffect.ReleaseLock("lock-late")));
    assertEquals(RunStatus.CANCELED, driver.state().status());
    assertFalse(driver.isRunning());
  }

  @Test
  void aRunDrivenByAnswersOfItsPortsEndsApplied() {
    PlanInfo plan =
        new PlanInfo(
            "digest-1",
            true,
            "plan text",
            "Plan: 2 to add, 0 to change, 0 to destroy.",
            2,
            0,
            0,
            List.of(PlannedStep.of("a.x"), PlannedStep.of("b.y", "a.x")));
    RecordingHandler ports =
        new RecordingHandler() {
          @Override
          void react(RunEffect effect, Consumer<RunCommand> reply) {
            switch (effect) {
              case RunEffect.AwaitAdmission a -> reply.accept(new RunCommand.Admitted());
              case RunEffect.RequestLock r -> reply.accept(new RunCommand.LockGranted("lock-1", 7));
              case RunEffect.OpenRun o ->
                  reply.accept(new RunCommand.Opened(new RunCredential("c")));
              case RunEffect.Plan p -> reply.accept(new RunCommand.Planned(plan, 0, null, T0));
              case RunEffect.Dispatch d ->
                  // executors answer from their own threads
                  d.actions()
                      .forEach(
                          a ->
                              Thread.ofVirtual()
                                  .start(
                                      () ->
                                          reply.accept(
                                              new RunCommand.StateRecorded(
                                                  a.actionId(),
                                                  a.address(),
                                                  "succeeded",
                                                  null,
                                                  null,
                                                  T0))));
              case RunEffect.RecordOutputs r -> reply.accept(new RunCommand.OutputsRecorded(""));
              default -> {}
            }
          }
        };
    RunDriver driver = start(ports);
    driver.enqueue(new RunCommand.Start(null));

    RunState ended =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> driver.ended().getNow(null), s -> s != null);
    assertEquals(RunStatus.APPLIED, ended.status());
    assertEquals("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.", ended.message());
    assertEquals(
        List.of("a.x", "b.y"),
        ports.handled.stream()
            .filter(RunEffect.Dispatch.class::isInstance)
            .flatMap(e -> ((RunEffect.Dispatch) e).actions().stream())
            .map(RunEffect.DispatchAction::address)
            .toList());
    assertEquals(1, ports.maxActive.get());
    assertEquals(Map.of(), ended.inFlight());
  }
}
