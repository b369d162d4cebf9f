package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.StateEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateHistoriesTest {
  private final StateHistories check = new StateHistories();

  @Test
  void aGaplessHistoryWithRisingSerialsAndCurrentTokensIsFine() {
    History h =
        history(100)
            .state(fenced("web", 1, 1, 1))
            .state(write("web", 2, 1, 1, 2))
            .state(write("web", 3, 2, 1, 3))
            .state(fenced("web", 4, 2, 10))
            .state(write("web", 5, 3, 2, 11))
            // another workspace counts on its own
            .state(fenced("db", 7, 9, 1))
            .state(write("db", 8, 1, 9, 2))
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void reportsAMissingSequence() {
    StateEntry before = write("web", 2, 1, 1, 2);
    StateEntry after = write("web", 5, 2, 1, 3);
    History h = history(100).state(fenced("web", 1, 1, 1)).state(before).state(after).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.STATE_SEQUENCE_GAP,
                "state history of acme/web: sequences 3..4 are missing (between 2 and 5)",
                List.of("acme/web", "sequence 5"),
                List.of(before, after)));
  }

  @Test
  void reportsARepeatedSequence() {
    StateEntry once = write("web", 2, 1, 1, 2);
    StateEntry twice = write("web", 2, 1, 1, 3);
    History h = history(100).state(fenced("web", 1, 1, 1)).state(once).state(twice).build();

    assertThat(check.check(h))
        .extracting(Violation::kind, Violation::what)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ViolationKind.STATE_SEQUENCE_GAP,
                "state history of acme/web: sequence 2 appears twice"),
            org.assertj.core.groups.Tuple.tuple(
                ViolationKind.STATE_SERIAL_NOT_INCREASING,
                "state history of acme/web: the write at sequence 2 has serial 1, not above serial 1"
                    + " of the write at sequence 2"));
  }

  @Test
  void reportsASerialThatWentBack() {
    StateEntry second = write("web", 2, 5, 1, 2);
    StateEntry third = write("web", 3, 4, 1, 3);
    History h = history(100).state(write("web", 1, 4, 1, 1)).state(second).state(third).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.STATE_SERIAL_NOT_INCREASING,
                "state history of acme/web: the write at sequence 3 has serial 4, not above serial 5"
                    + " of the write at sequence 2",
                List.of("acme/web", "sequence 3"),
                List.of(second, third)));
  }

  @Test
  void reportsALineageChange() {
    StateEntry first = write("web", 1, 1, 1, 1);
    StateEntry other =
        new StateEntry("acme", "web", 2, StateEntry.Kind.WRITE, 2, "lin-2", 1L, "r-1", t(2));
    History h = history(100).state(first).state(other).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.STATE_LINEAGE_CHANGED,
                "state history of acme/web: the write at sequence 2 has lineage lin-2, not lin-1 as"
                    + " from sequence 1",
                List.of("acme/web", "sequence 2"),
                List.of(first, other)));
  }

  @Test
  void reportsAWriteUnderAStaleFencingToken() {
    StateEntry takeover = fenced("web", 2, 2, 10);
    StateEntry zombie = write("web", 3, 2, 1, 12);
    History h = history(100).state(write("web", 1, 1, 1, 1)).state(takeover).state(zombie).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.STATE_WRITE_STALE_TOKEN,
                "state history of acme/web: the write at sequence 3 by run r-1 used fencing token 1"
                    + " after token 2 was seen at sequence 2",
                List.of("acme/web", "sequence 3"),
                List.of(takeover, zombie)));
  }
}
