package dev.stagecraft.chaos.source;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.Fixtures;
import dev.stagecraft.chaos.history.StateEntry;
import dev.stagecraft.chaos.invariant.StateHistories;
import dev.stagecraft.chaos.invariant.ViolationKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateHistoryAssemblyTest {

  static StateEventRow row(
      long seq, String type, String run, String lineage, Long token, Long serial, long at) {
    return new StateEventRow("acme", "web", seq, type, run, lineage, token, serial, t(at));
  }

  @Test
  void writesTakeTheirRunsTokenAndTheNewestLineage() {
    List<StateEntry> entries =
        StateHistoryAssembly.entries(
            List.of(
                row(3, "instance_created", "r-1", null, null, 1L, 3),
                row(1, "lineage_assigned", null, "lin-1", null, null, 1),
                row(2, "fencing_advanced", "r-1", null, 7L, null, 2),
                row(4, "outputs_written", null, null, null, 2L, 4)));

    assertThat(entries)
        .containsExactly(
            new StateEntry("acme", "web", 1, StateEntry.Kind.NOTE, 0, null, null, null, t(1)),
            new StateEntry(
                "acme", "web", 2, StateEntry.Kind.FENCING_ADVANCED, 0, null, 7L, "r-1", t(2)),
            new StateEntry("acme", "web", 3, StateEntry.Kind.WRITE, 1, "lin-1", 7L, "r-1", t(3)),
            new StateEntry("acme", "web", 4, StateEntry.Kind.WRITE, 2, "lin-1", null, null, t(4)));
  }

  @Test
  void aZombieRunsWriteAfterATakeoverIsFoundByTheChecker() {
    List<StateEntry> entries =
        StateHistoryAssembly.entries(
            List.of(
                row(1, "lineage_assigned", null, "lin-1", null, null, 1),
                row(2, "fencing_advanced", "r-1", null, 1L, null, 2),
                row(3, "fencing_advanced", "r-2", null, 2L, null, 30),
                row(4, "instance_created", "r-1", null, null, 1L, 31)));

    var history = Fixtures.history(100).states(entries).build();

    assertThat(new StateHistories().check(history))
        .extracting(v -> v.kind(), v -> v.what())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ViolationKind.STATE_WRITE_STALE_TOKEN,
                "state history of acme/web: the write at sequence 4 by run r-1 used fencing token 1"
                    + " after token 2 was seen at sequence 3"));
  }
}
