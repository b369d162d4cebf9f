package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.planner.service.adapter.LockEventsListener;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code dev.stagecraft.lock.lease-expired} through a real KRaft broker into the planner's
 * lock-events listener and the run coordinator: the run holding the expired lock ends {@code
 * errored} at once (its heartbeats would still succeed here), other events change nothing, and a
 * redelivered event is harmless.
 */
class LockLeaseExpiredTest {
  static Path dir;
  static EmbeddedKafka kafka;
  static KafkaSettings settings;
  static EventPublisher publisher;

  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final RunCoordinatorTest.FakeLocks locks = new RunCoordinatorTest.FakeLocks();
  final CoordinatorHarness harness =
      new CoordinatorHarness(locks, new RunCoordinatorTest.FakeStates(), clock);
  final RunCoordinator coordinator = harness.coordinator;
  final AtomicInteger eventIds = new AtomicInteger();
  final EventCodec lockService =
      new EventCodec("/stagecraft/lock-service", clock, () -> "x" + eventIds.incrementAndGet());
  EventConsumer listener;

  @BeforeAll
  static void startKafka() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "lock-events");
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    settings = new KafkaSettings(kafka.bootstrapServers());
    TopicBootstrap.ensureTopics(settings, 2, (short) 1);
    publisher = new EventPublisher(settings, "lock-events-test");
  }

  @AfterAll
  static void stopKafka() {
    publisher.close();
    kafka.close();
  }

  @AfterEach
  void stop() {
    if (listener != null) {
      listener.close();
    }
    harness.close();
  }

  /** Starts a run and waits until it applies (its first action dispatched, the lock held). */
  Run applyingRun(String workspace) {
    int before = harness.dispatched().size();
    Run run = coordinator.start(CoordinatorHarness.twoSteps(workspace));
    await().atMost(Duration.ofSeconds(10)).until(() -> harness.dispatched().size() == before + 1);
    assertThat(run.summary().status()).isEqualTo("applying");
    return run;
  }

  /** Publishes an expiry as the lock service does, all on one partition so they arrive in order. */
  void publishExpiry(String tenant, String workspace, String holder, String lockId, long token) {
    publisher.publish(
        lockService.wrapWithId(
            "lock-lease-expired-" + eventIds.incrementAndGet(),
            tenant,
            workspace,
            null,
            token,
            lockId,
            new LockLeaseExpired(lockId, holder, token, clock.instant())),
        "one-partition");
  }

  @Test
  void theRunHoldingTheExpiredLockEndsErroredAtOnceAndOtherEventsChangeNothing() {
    listener =
        LockEventsListener.start(settings, "test-" + UUID.randomUUID(), publisher, coordinator);
    Run prod = applyingRun("prod");
    String prodLock = locks.lastLockId;
    long prodToken = locks.lastToken;
    Run stage = applyingRun("stage");
    String stageLock = locks.lastLockId;
    long stageToken = locks.lastToken;

    // not prod's lock: another tenant, another workspace, an older lock id, an unknown holder,
    // another event type on the same topic
    publishExpiry("globex", "prod", prod.id(), prodLock, prodToken);
    publishExpiry("acme", "stage", prod.id(), prodLock, prodToken);
    publishExpiry("acme", "prod", prod.id(), "lock-older", prodToken - 1);
    publishExpiry("acme", "prod", "run-unknown", prodLock, prodToken);
    publisher.publish(
        lockService.wrap(
            "acme", "prod", prod.id(), 1, prod.id(), new RunTransitioned(prod.id(), "x", "y")),
        "one-partition");
    // then stage's own expiry, behind them on the same partition
    publishExpiry("acme", "stage", stage.id(), stageLock, stageToken);

    await().atMost(Duration.ofSeconds(20)).until(() -> stage.summary().terminal());
    assertThat(stage.summary().status()).isEqualTo("errored");
    assertThat(stage.summary().message())
        .startsWith("Lock lease expired")
        .contains(stageLock)
        .contains("fencing token " + stageToken);
    assertThat(locks.released).contains(stageLock);
    assertThat(prod.summary().status())
        .as("the events before stage's named no lock that prod holds")
        .isEqualTo("applying");

    // a redelivered expiry of stage, then prod's own
    publishExpiry("acme", "stage", stage.id(), stageLock, stageToken);
    publishExpiry("acme", "prod", prod.id(), prodLock, prodToken);
    await().atMost(Duration.ofSeconds(20)).until(() -> prod.summary().terminal());
    assertThat(prod.summary().status()).isEqualTo("errored");
    assertThat(harness.statuses(stage)).containsOnlyOnce("errored").last().isEqualTo("errored");

    // late outcomes of the ended runs dispatch nothing more
    int dispatched = harness.dispatched().size();
    for (ActionDispatched action : harness.dispatched()) {
      harness.stateRecorded(
          "acme",
          action.runId().equals(prod.id()) ? "prod" : "stage",
          action,
          "succeeded",
          null,
          1);
    }
    assertThat(harness.dispatched()).hasSize(dispatched);
  }

  @Test
  void aForceUnlockOfTheRunsLockEndsItNamingWhoAndWhyAndOthersChangeNothing() {
    listener =
        LockEventsListener.start(settings, "test-" + UUID.randomUUID(), publisher, coordinator);
    Run prod = applyingRun("prod");
    long prodToken = locks.lastToken;
    Run stage = applyingRun("stage");
    long stageToken = locks.lastToken;

    // an older lease of prod's holder, and another tenant's: nothing changes
    publishForced("acme", "prod", prod.id(), prodToken - 1);
    publishForced("globex", "prod", prod.id(), prodToken);
    // stage's own lock, named by a client's lock id (as over the Terraform HTTP backend)
    publishForced("acme", "stage", stage.id(), stageToken);

    await().atMost(Duration.ofSeconds(20)).until(() -> stage.summary().terminal());
    assertThat(stage.summary().status()).isEqualTo("errored");
    assertThat(stage.summary().message())
        .startsWith("Workspace lock forced open by ops@acme (stuck deploy)")
        .contains("fencing token " + stageToken);
    assertThat(prod.summary().status()).isEqualTo("applying");

    // redelivered: one terminal transition only
    publishForced("acme", "stage", stage.id(), stageToken);
    publishForced("acme", "prod", prod.id(), prodToken);
    await().atMost(Duration.ofSeconds(20)).until(() -> prod.summary().terminal());
    assertThat(harness.statuses(stage)).containsOnlyOnce("errored");
  }

  void publishForced(String tenant, String workspace, String holder, long token) {
    publisher.publish(
        lockService.wrapWithId(
            "lock-force-unlocked-" + eventIds.incrementAndGet(),
            tenant,
            workspace,
            null,
            token,
            "client-lock-id",
            new dev.stagecraft.schemas.lock.LockForceUnlocked(
                "client-lock-id",
                holder,
                token,
                "ops@acme",
                "stuck deploy",
                "terraform-http-backend")),
        "one-partition");
  }

  @Test
  void anExpiryArrivingTwiceEndsTheRunOnceWithOneTransition() {
    Run run = applyingRun("prod");
    EventEnvelope expiry =
        lockService.wrapWithId(
            "lock-lease-expired-7",
            "acme",
            "prod",
            null,
            locks.lastToken,
            locks.lastLockId,
            new LockLeaseExpired(locks.lastLockId, run.id(), locks.lastToken, clock.instant()));

    coordinator.onLockEvent(expiry);
    coordinator.onLockEvent(expiry);

    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(harness.statuses(run)).containsOnlyOnce("errored");
    assertThat(locks.released).containsOnlyOnce(locks.lastLockId);
  }
}
