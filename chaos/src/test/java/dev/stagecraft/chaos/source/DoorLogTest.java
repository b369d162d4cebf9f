package dev.stagecraft.chaos.source;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.StateEntry;
import dev.stagecraft.chaos.invariant.NoLostEvents;
import dev.stagecraft.chaos.invariant.Violation;
import dev.stagecraft.chaos.invariant.ViolationKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class DoorLogTest {
  static final List<String> LINES =
      List.of(
          "# what the doors had committed",
          "2026-12-05T10:00:01Z trigger acme run-1 stagecraft.run-requests 0 17 evt-1",
          "2026-12-05T10:00:02Z push acme tf-0 4 lock-a",
          "",
          "2026-12-05T10:00:03Z trigger acme run-2 stagecraft.run-requests 2 5 evt-2",
          "2026-12-05T10:00:04Z push acme tf-0 5 lock-b",
          "yesterday push acme tf-0 6 lock-c",
          "2026-12-05T10:00:05Z push acme tf-0 six lock-c",
          "2026-12-05T10:00:06Z trigger acme run-3");

  @Test
  void readsTriggersAndPushesAndNamesTheLinesItCannotUse() {
    DoorLog.Reading r = DoorLog.parse("doors", LINES);

    assertThat(r.committed())
        .containsExactly(
            new EventSighting(DoorLog.TRIGGER_STREAM, "run-1", EventSighting.Side.UPSTREAM, t(1)),
            new EventSighting(
                DoorLog.PUSH_STREAM, "acme/tf-0@4", EventSighting.Side.UPSTREAM, t(2)),
            new EventSighting(DoorLog.TRIGGER_STREAM, "run-2", EventSighting.Side.UPSTREAM, t(3)),
            new EventSighting(
                DoorLog.PUSH_STREAM, "acme/tf-0@5", EventSighting.Side.UPSTREAM, t(4)));
    assertThat(r.problems()).hasSize(3);
    assertThat(r.problems().get(0))
        .isEqualTo("doors:7: \"yesterday\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)");
    assertThat(r.problems().get(1)).startsWith("doors:8: expected \"<at> trigger");
    assertThat(r.problems().get(2)).startsWith("doors:9: expected \"<at> trigger");
  }

  @Test
  void aTriggerWithoutItsRunAndAPushWithoutItsWriteAreReportedLost() {
    List<EventSighting> committed = DoorLog.parse("doors", LINES).committed();
    // run-1 exists, run-2 never did; serial 4 was written, serial 5 never was (a note took 3)
    List<EventSighting> downstream =
        DoorLog.downstream(
            committed,
            List.of(applied("run-1", "ws-0", 2, 3, 9), applied("run-9", "ws-0", 3, 10, 12)),
            List.of(
                new StateEntry(
                    "acme", "tf-0", 1, StateEntry.Kind.WRITE, 4, "lin-1", null, null, t(2)),
                new StateEntry(
                    "acme", "tf-1", 1, StateEntry.Kind.WRITE, 5, "lin-1", null, null, t(4)),
                new StateEntry(
                    "acme", "tf-0", 2, StateEntry.Kind.NOTE, 5, null, null, null, t(4))));
    assertThat(downstream)
        .containsExactly(
            new EventSighting(DoorLog.TRIGGER_STREAM, "run-1", EventSighting.Side.DOWNSTREAM, t(2)),
            new EventSighting(
                DoorLog.PUSH_STREAM, "acme/tf-0@4", EventSighting.Side.DOWNSTREAM, t(2)));

    History h = history(100).events(committed).events(downstream).build();
    List<Violation> found = new NoLostEvents().check(h);

    assertThat(found)
        .extracting(Violation::kind)
        .containsExactly(ViolationKind.EVENT_LOST, ViolationKind.EVENT_LOST);
    assertThat(found)
        .extracting(Violation::what)
        .containsExactly(
            "event run-2 on "
                + DoorLog.TRIGGER_STREAM
                + " was committed upstream at 2026-12-05T10:00:03Z but never seen downstream",
            "event acme/tf-0@5 on "
                + DoorLog.PUSH_STREAM
                + " was committed upstream at 2026-12-05T10:00:04Z but never seen downstream");
  }
}
