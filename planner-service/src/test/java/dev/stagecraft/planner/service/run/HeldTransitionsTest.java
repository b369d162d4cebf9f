package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeldTransitionsTest {
  private final AtomicInteger ids = new AtomicInteger();
  private final EventCodec codec =
      new EventCodec("/test", Clock.systemUTC(), () -> "e" + ids.incrementAndGet());

  /** "key:status" of every event the outbox was handed, in order. */
  private final List<String> sent = new CopyOnWriteArrayList<>();

  private final EventOutbox outbox =
      new EventOutbox() {
        @Override
        public void publishAll(List<Keyed> events) {
          events.forEach(e -> send(e.envelope(), e.key()));
        }

        @Override
        public void send(EventEnvelope envelope, String key) {
          sent.add(key + ":" + EventCodec.data(envelope, RunTransitioned.class).status());
        }
      };

  private EventEnvelope transition(String status) {
    return codec.wrap("t", "w", "r1", 1, "r1", new RunTransitioned("r1", status, null));
  }

  @Test
  void holdsUntilTheKeysFlushThenSendsInOrder() {
    try (HeldTransitions held = new HeldTransitions(outbox, Duration.ofMinutes(10))) {
      held.send(transition("pending"), "t/a");
      held.hold(transition("planning"), "t/a");
      held.hold(transition("planned"), "t/a");
      held.hold(transition("applying"), "t/b");
      assertThat(sent).containsExactly("t/a:pending");

      held.flush("t/a");

      assertThat(sent).containsExactly("t/a:pending", "t/a:planning", "t/a:planned");
      held.flush("t/a");
      assertThat(sent).hasSize(3);
    }
  }

  @Test
  void anEventSentAtOnceGoesAfterWhatIsHeldForItsKey() {
    try (HeldTransitions held = new HeldTransitions(outbox, Duration.ofMinutes(10))) {
      held.hold(transition("planning"), "t/a");
      held.hold(transition("planned"), "t/b");

      held.send(transition("errored"), "t/a");

      assertThat(sent).containsExactly("t/a:planning", "t/a:errored");
    }
  }

  @Test
  void sendsWhatIsHeldOnceTheDeadlinePassedWithoutAFlush() throws Exception {
    try (HeldTransitions held = new HeldTransitions(outbox, Duration.ofMillis(5))) {
      held.hold(transition("planning"), "t/a");
      held.hold(transition("planned"), "t/a");

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(sent).containsExactly("t/a:planning", "t/a:planned"));
    }
  }

  @Test
  void closeSendsEverythingStillHeld() {
    HeldTransitions held = new HeldTransitions(outbox, Duration.ofMinutes(10));
    held.hold(transition("planning"), "t/a");
    held.hold(transition("applying"), "t/b");

    held.close();

    assertThat(sent).containsExactlyInAnyOrder("t/a:planning", "t/b:applying");
  }

  @Test
  void withoutADeadlineNothingIsHeld() {
    try (HeldTransitions held = new HeldTransitions(outbox, Duration.ZERO)) {
      held.hold(transition("planning"), "t/a");
      assertThat(sent).containsExactly("t/a:planning");
    }
  }

  @Test
  void refusesANegativeDeadlineNamingTheSetting() {
    assertThatThrownBy(() -> new HeldTransitions(outbox, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STAGECRAFT_PLANNER_TRANSITION_HOLD");
  }
}
