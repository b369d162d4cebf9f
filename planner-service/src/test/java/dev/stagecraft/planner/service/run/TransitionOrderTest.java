package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each transition is handed to the outbox at once, in the run's order, before the dispatch that
 * follows it (docs/adr/0073: nothing is held back for the first dispatch) — also when no dispatch
 * follows.
 */
class TransitionOrderTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final AtomicInteger ids = new AtomicInteger();
  final AtomicReference<RunCoordinator> coordinatorRef = new AtomicReference<>();

  /**
   * Every hand-over, in order: "status@run's status at that moment" (as of the run's decision that
   * made the transition) for a transition, "dispatch ADDRESS" for a dispatch.
   */
  final List<String> handedOver = new CopyOnWriteArrayList<>();

  final EventOutbox outbox =
      new EventOutbox() {
        @Override
        public void publishAll(List<Keyed> events) {
          events.forEach(e -> record(e.envelope()));
        }

        @Override
        public void send(EventEnvelope envelope, String key) {
          assertThat(key).isEqualTo(envelope.workspaceKey());
          record(envelope);
        }
      };

  final RunCoordinator coordinator =
      new RunCoordinator(
          new FakeLocks(),
          new FakeStates(),
          outbox,
          new EventCodec("/test", clock, () -> "e" + ids.incrementAndGet()),
          clock,
          () -> "id" + ids.incrementAndGet(),
          new UploadedFiles(CoordinatorHarness.newTempDirectory()));

  TransitionOrderTest() {
    coordinatorRef.set(coordinator);
  }

  @AfterEach
  void close() {
    coordinator.close();
  }

  private void record(EventEnvelope envelope) {
    if (envelope.type().equals("dev.stagecraft.run.transitioned")) {
      String now =
          coordinatorRef
              .get()
              .find(envelope.tenant(), envelope.runid())
              .map(r -> r.summary().status())
              .orElse("?");
      handedOver.add(EventCodec.data(envelope, RunTransitioned.class).status() + "@" + now);
    } else if (envelope.type().equals("dev.stagecraft.action.dispatched")) {
      handedOver.add("dispatch " + EventCodec.data(envelope, ActionDispatched.class).address());
    }
  }

  private static RunRequest request(String config) {
    return CoordinatorHarness.request("acme", "prod", config);
  }

  @Test
  void eachTransitionIsHandedOverAtOnceAndBeforeTheFirstDispatch() {
    coordinator.start(request(RunCoordinatorTest.TWO_STEPS));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> handedOver.stream().anyMatch(h -> h.startsWith("dispatch")));
    await().atMost(Duration.ofSeconds(10)).until(() -> handedOver.size() == 5);
    assertThat(handedOver)
        .containsExactly(
            // each handed over by the decision that made it (nothing waits for the dispatch), in
            // order; a plan needing no approval is planned and applying in one decision
            "pending@pending",
            "planning@planning",
            "planned@applying",
            "applying@applying",
            "dispatch stateful_provisioning.db");
  }

  @Test
  void transitionsAreSentWhenNoDispatchFollows() {
    Run run = coordinator.startAwaitingApproval(request(RunCoordinatorTest.TWO_STEPS));

    await().atMost(Duration.ofSeconds(10)).until(() -> handedOver.size() == 3);
    assertThat(run.summary().status()).isEqualTo("planned");
    // sent without a dispatch (the run waits for approval), each as the run moved, in order
    assertThat(handedOver)
        .containsExactly("pending@pending", "planning@planning", "planned@planned");
  }

  @Test
  void aRunWithoutChangesSendsEveryTransitionInOrder() {
    String nothing = "locals {\n  x = 1\n}\n";

    Run run = coordinator.start(request(nothing));

    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(handedOver)
        .extracting(h -> h.substring(0, h.indexOf('@')))
        .containsExactly("pending", "planning", "planned", "planned_and_finished");
  }
}
