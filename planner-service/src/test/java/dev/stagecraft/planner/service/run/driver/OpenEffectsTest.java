package dev.stagecraft.planner.service.run.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.planner.service.run.WorkspaceStates;
import dev.stagecraft.planner.service.run.lifecycle.CarriedAction;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The state-service part of a run's effect handler, driven by a real {@link RunDriver} and {@link
 * RunDecider} with the lock part: the run opened once it holds the lock, what it opened with kept
 * until it ends, its credential revoked when it ends, a carried-on run's recorded outcomes read —
 * as {@code RunCoordinator.openRun} and {@code awaitCarried} do it.
 */
class OpenEffectsTest {
  static final Instant NOW = Instant.parse("2026-01-01T10:00:00Z");
  static final Instant EARLIER = NOW.minusSeconds(60);
  static final String STATE = "{\"version\":4,\"serial\":7,\"resources\":[]}";

  final LockEffectsTest.FakeLocks locks = new LockEffectsTest.FakeLocks();
  final FakeStates states = new FakeStates();
  final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  final LockEffects lockEffects = new LockEffects(locks, timer, 30, 10);
  final OpenedRuns openedRuns = new OpenedRuns();
  final OpenEffects openEffects =
      new OpenEffects(states, openedRuns, Clock.fixed(NOW, ZoneOffset.UTC));
  final List<RunEffect> others = new CopyOnWriteArrayList<>();
  final RunDecider decider =
      new RunDecider(Duration.ofHours(1), Duration.ofSeconds(15), Duration.ofMinutes(10));

  final EffectHandler handler =
      (effect, state, reply) -> {
        if (lockEffects.handle(effect, state, LockEffectsTest.HOLDER, reply)
            || openEffects.handle(effect, state, reply)) {
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
  void aRunHoldingTheLockOpensAndKeepsWhatItOpenedWithUntilItEnds() throws Exception {
    states.minted = "cred-1";
    locks.answers.add(new WorkspaceLocks.Granted("l-1", 5));
    driver.enqueue(new RunCommand.Start(null));

    await().atMost(Duration.ofSeconds(10)).until(() -> others.contains(new RunEffect.Plan()));
    assertThat(driver.state().status()).isEqualTo(RunStatus.PLANNING);
    assertThat(driver.state().credential()).isEqualTo(new RunCredential("cred-1"));
    assertThat(states.calls).containsExactly("register 5", "mint run-1 5", "keys", "read cred-1");
    WorkspaceStates.OpenedRun opened = openedRuns.of("run-1").orElseThrow();
    assertThat(opened.stateV4Json()).isEqualTo(STATE);
    assertThat(opened.hostKeys()).isSameAs(states.keys);

    driver.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);

    assertThat(driver.state().status()).isEqualTo(RunStatus.CANCELED);
    // revoked before the lock was given back, and nothing kept of the ended run
    assertThat(states.calls).endsWith("revoke run-1");
    assertThat(locks.released).containsExactly("l-1");
    assertThat(openedRuns.of("run-1")).isEmpty();
  }

  @Test
  void aStateServiceMintingNoCredentialOpensTheRunAllTheSame() throws Exception {
    states.minted = null; // as the coordinator's test ports
    locks.answers.add(new WorkspaceLocks.Granted("l-2", 6));
    driver.enqueue(new RunCommand.Start(null));

    await().atMost(Duration.ofSeconds(10)).until(() -> others.contains(new RunEffect.Plan()));
    assertThat(driver.state().status()).isEqualTo(RunStatus.PLANNING);
    assertThat(driver.state().opened()).isTrue();
    assertThat(driver.state().credential()).isNull();
    assertThat(openedRuns.of("run-1")).isPresent();

    driver.enqueue(new RunCommand.CancelRequested("alice@acme")).get(10, TimeUnit.SECONDS);
    assertThat(states.calls).doesNotContain("revoke run-1"); // nothing to revoke
    assertThat(openedRuns.of("run-1")).isEmpty();
  }

  @Test
  void aRefusedOpenEndsTheRunErroredAndGivesTheLockBack() {
    states.refusal = new IllegalStateException("fencing token 7 is stale");
    locks.answers.add(new WorkspaceLocks.Granted("l-3", 7));
    driver.enqueue(new RunCommand.Start(null));

    await().atMost(Duration.ofSeconds(10)).until(() -> driver.state().isTerminal());
    assertThat(driver.state().status()).isEqualTo(RunStatus.ERRORED);
    assertThat(driver.state().message())
        .isEqualTo(RunMessages.runFailed("fencing token 7 is stale"));
    assertThat(locks.released).containsExactly("l-3");
    assertThat(others).doesNotContain(new RunEffect.Plan());
    assertThat(openedRuns.of("run-1")).isEmpty();
  }

  @Test
  void aCarriedOnRunReadsTheRecordedOutcomesOnceItHoldsTheLockAgain() {
    RunDriver carried =
        RunDriver.start(
            RunState.initial("run-2", RunSettings.autoApply("acme", "web")), decider, handler);
    try {
      CarriedAction done = new CarriedAction("run-2/a.x", "a.x", "create", EARLIER, true);
      CarriedAction running = new CarriedAction("run-2/c.z", "c.z", "create", EARLIER, true);
      states.outcomes = Map.of("run-2/a.x", "succeeded");
      locks.answers.add(new WorkspaceLocks.Granted("l-4", 8));
      carried.enqueue(
          new RunCommand.CarryOn(
              20, "carried on", List.of(done, running), null, new RunCredential("cred-0")));

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> carried.state().status() == RunStatus.APPLYING);
      assertThat(states.calls).containsExactly("outcomes run-2");
      assertThat(carried.state().message())
          .isEqualTo(RunMessages.carriedApplying(carried.state().carried()));
      // the running one is in flight from when the outcomes were read (the handler's clock)
      assertThat(carried.state().inFlight().keySet()).containsExactly("run-2/c.z");
      assertThat(carried.state().inFlight().get("run-2/c.z").lastSeen()).isEqualTo(NOW);
      // the credential its dispatches carried, taken back; not opened again before the rest
      assertThat(carried.state().credential()).isEqualTo(new RunCredential("cred-0"));
      assertThat(carried.state().opened()).isFalse();
    } finally {
      carried.close();
    }
  }

  /** A state service recording the calls of the open effects, in order. */
  static final class FakeStates implements WorkspaceStates {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final KnownHostKeys keys = KnownHostKeys.NONE;
    volatile String minted;
    volatile RuntimeException refusal;
    volatile Map<String, String> outcomes = Map.of();

    @Override
    public void registerFencingToken(String tenant, String workspace, long token) {
      calls.add("register " + token);
      if (refusal != null) {
        throw refusal;
      }
    }

    @Override
    public String mintRunCredential(
        String tenant, String workspace, String runId, long fencingToken) {
      calls.add("mint " + runId + " " + fencingToken);
      return minted;
    }

    @Override
    public KnownHostKeys knownHostKeys(String tenant, String workspace) {
      calls.add("keys");
      return keys;
    }

    @Override
    public String read(String tenant, String workspace) {
      return STATE;
    }

    @Override
    public String read(String tenant, String workspace, String runCredential) {
      calls.add("read " + runCredential);
      return STATE;
    }

    @Override
    public void revokeRunCredential(String tenant, String workspace, String runId) {
      calls.add("revoke " + runId);
    }

    @Override
    public Map<String, String> recordedOutcomes(String tenant, String workspace, String runId) {
      calls.add("outcomes " + runId);
      return outcomes;
    }

    @Override
    public TaintChange changeTaint(
        String tenant,
        String workspace,
        String address,
        boolean tainted,
        long fencingToken,
        String actor) {
      throw new UnsupportedOperationException("not an open effect");
    }
  }
}
