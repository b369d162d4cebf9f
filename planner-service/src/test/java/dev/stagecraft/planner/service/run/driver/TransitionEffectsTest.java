package dev.stagecraft.planner.service.run.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.apply.PlannedStep;
import dev.stagecraft.planner.service.run.EventOutbox;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.PlanInfo;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transition part of a run's effect handler, driven by a real {@link RunDriver} and {@link
 * RunDecider}: every transition recorded and published in the run's sequence order, the one that
 * waits for approval published with the plan's digest and its deadline — as {@code
 * RunCoordinator.transition} does it.
 */
class TransitionEffectsTest {
  static final Instant NOW = Instant.parse("2026-01-01T10:00:00Z");
  static final Duration APPROVAL_TIMEOUT = Duration.ofHours(1);
  static final PlanInfo PLAN =
      new PlanInfo(
          "digest-1",
          true,
          "plan text",
          "Plan: 1 to add, 0 to change, 0 to destroy.",
          1,
          0,
          0,
          List.of(PlannedStep.of("a.x")));

  final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  final FakeOutbox outbox = new FakeOutbox();
  final TransitionEffects transitionEffects =
      new TransitionEffects(
          new TransitionPublisher(
              new EventCodec("/test", clock, () -> "e-" + System.nanoTime()), outbox),
          clock);
  final List<String> recorded = new CopyOnWriteArrayList<>();
  final TransitionEffects.Records records =
      (sequence, status, message, at) ->
          recorded.add(sequence + " " + status.wireName() + " " + message + " at " + at);
  final RunDecider decider =
      new RunDecider(APPROVAL_TIMEOUT, Duration.ofSeconds(15), Duration.ofMinutes(10));

  /** The other ports answer at once: admitted, the lock granted, opened, planned. */
  final EffectHandler handler =
      (effect, state, reply) -> {
        if (transitionEffects.handle(effect, state, records)) {
          return;
        }
        switch (effect) {
          case RunEffect.AwaitAdmission a -> reply.accept(new RunCommand.Admitted());
          case RunEffect.RequestLock r -> reply.accept(new RunCommand.LockGranted("l-1", 5));
          case RunEffect.OpenRun o -> reply.accept(new RunCommand.Opened(null));
          case RunEffect.Plan p -> reply.accept(new RunCommand.Planned(PLAN, 3, null, NOW));
          default -> {}
        }
      };

  final RunDriver driver =
      RunDriver.start(
          RunState.initial("run-1", RunSettings.autoApply("acme", "web").withApproval()),
          decider,
          handler);

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void transitionsAreRecordedAndPublishedInTheRunsOrderWithTheApprovalDeadline() throws Exception {
    driver.enqueue(new RunCommand.Start("waiting"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> driver.state().status() == RunStatus.PLANNED);

    assertThat(recorded)
        .containsExactly(
            "1 pending waiting at " + NOW,
            "2 planning null at " + NOW,
            "3 planned plan text at " + NOW);
    assertThat(outbox.sent).extracting(EventEnvelope::sequence).containsExactly(1L, 2L, 3L);
    assertThat(outbox.keys).containsOnly("acme/web");
    RunTransitioned planned = EventCodec.data(outbox.sent.get(2), RunTransitioned.class);
    assertThat(planned.status()).isEqualTo("planned");
    assertThat(planned.planDigest()).isEqualTo("digest-1");
    assertThat(planned.approvalExpiresAt()).isEqualTo(NOW.plus(APPROVAL_TIMEOUT).toString());
    RunTransitioned planning = EventCodec.data(outbox.sent.get(1), RunTransitioned.class);
    assertThat(planning.planDigest()).isNull();
    assertThat(planning.approvalExpiresAt()).isNull();

    driver.enqueue(new RunCommand.Discard("alice@acme")).get(10, TimeUnit.SECONDS);
    assertThat(recorded).hasSize(4);
    assertThat(recorded.get(3)).startsWith("4 discarded ");
    RunTransitioned discarded = EventCodec.data(outbox.sent.get(3), RunTransitioned.class);
    assertThat(discarded.status()).isEqualTo("discarded");
    assertThat(discarded.approvalExpiresAt()).isNull();
  }

  @Test
  void aTransitionTheProducerCannotTakeIsStillRecordedAndTheRunGoesOn() {
    outbox.failure = new IllegalStateException("broker unreachable");
    driver.enqueue(new RunCommand.Start(null));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> driver.state().status() == RunStatus.PLANNED);
    assertThat(recorded).hasSize(3);
    assertThat(outbox.sent).isEmpty();
  }

  /** An outbox keeping what it was handed, in order. */
  static final class FakeOutbox implements EventOutbox {
    final List<EventEnvelope> sent = new CopyOnWriteArrayList<>();
    final List<String> keys = new CopyOnWriteArrayList<>();
    volatile RuntimeException failure;

    @Override
    public void publishAll(List<Keyed> events) {
      if (failure != null) {
        throw failure;
      }
      for (Keyed k : events) {
        sent.add(k.envelope());
        keys.add(k.key());
      }
    }
  }
}
