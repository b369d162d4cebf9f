package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.history.History;
import java.util.List;
import org.junit.jupiter.api.Test;

class NoLostEventsTest {
  private final NoLostEvents check = new NoLostEvents();

  @Test
  void everyCommittedEventSeenDownstreamIsFine() {
    History h =
        history(100)
            .event(up("e-1", 1))
            .event(down("e-1", 2))
            .event(down("e-1", 9)) // a redelivery is not a loss
            .event(down("e-0", 3)) // seen downstream only: committed before the checker looked
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void reportsACommittedEventNeverSeenDownstream() {
    EventSighting lost = up("e-2", 5);
    History h = history(100).event(up("e-1", 1)).event(down("e-1", 2)).event(lost).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.EVENT_LOST,
                "event e-2 on stagecraft.run-events was committed upstream at 2026-12-05T10:00:05Z"
                    + " but never seen downstream",
                List.of("stagecraft.run-events", "e-2"),
                List.of(lost)));
  }

  @Test
  void anEventSeenDownstreamOnAnotherStreamIsStillLost() {
    History h =
        history(100)
            .event(up("e-1", 1))
            .event(
                new EventSighting("stagecraft.actions", "e-1", EventSighting.Side.DOWNSTREAM, t(2)))
            .build();

    assertThat(check.check(h))
        .extracting(Violation::kind)
        .containsExactly(ViolationKind.EVENT_LOST);
  }
}
