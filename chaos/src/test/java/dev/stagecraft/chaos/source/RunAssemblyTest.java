package dev.stagecraft.chaos.source;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.Fixtures;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.invariant.FifoQueues;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunAssemblyTest {

  static LockAuditRow row(long id, String type, String lockId, String holder, Long token, long at) {
    return LockAuditTrailTest.row(id, type, lockId, holder, token, at);
  }

  @Test
  void aRunStartsWhenGrantedItsLockAndEndsAtItsLastTransition() {
    LockAuditTrail locks =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 1),
                row(2, "enqueued", null, "r-2", null, 2),
                row(3, "released", "l-1", "r-1", 1L, 9),
                row(4, "acquired", "l-2", "r-2", 2L, 9)));
    List<RunRow> rows =
        List.of(
            new RunRow(
                "r-2",
                "acme",
                "web",
                "applying",
                t(2),
                t(10),
                List.of(new RunRow.Transition(1, "pending", t(2)))),
            new RunRow(
                "r-1",
                "acme",
                "web",
                "applied",
                t(0),
                t(9),
                List.of(
                    new RunRow.Transition(2, "applied", t(8)),
                    new RunRow.Transition(1, "pending", t(0)))));

    assertThat(RunAssembly.runs(rows, locks))
        .containsExactly(
            new RunRecord("r-1", "acme", "web", t(0), t(1), t(8), "applied", 1, false),
            new RunRecord("r-2", "acme", "web", t(2), t(9), null, "applying", 2, false));
  }

  @Test
  void aLockGrantedOutOfArrivalOrderIsFoundByTheChecker() {
    LockAuditTrail locks =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 1),
                row(2, "enqueued", null, "r-2", null, 2),
                row(3, "enqueued", null, "r-3", null, 3),
                row(4, "released", "l-1", "r-1", 1L, 9),
                row(5, "acquired", "l-2", "r-3", 2L, 9)));
    List<RunRow> rows =
        List.of(
            new RunRow("r-1", "acme", "web", "applied", t(0), t(9), List.of()),
            new RunRow("r-2", "acme", "web", "applying", t(2), t(2), List.of()),
            new RunRow("r-3", "acme", "web", "applying", t(3), t(3), List.of()));

    var history = Fixtures.history(100).runs(RunAssembly.runs(rows, locks)).build();

    // r-2 never started (still waiting): r-3 overtaking it is not visible until r-2 starts
    assertThat(new FifoQueues().check(history)).isEmpty();

    LockAuditTrail later =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 1),
                row(2, "enqueued", null, "r-2", null, 2),
                row(3, "enqueued", null, "r-3", null, 3),
                row(4, "released", "l-1", "r-1", 1L, 9),
                row(5, "acquired", "l-2", "r-3", 2L, 9),
                row(6, "released", "l-2", "r-3", 2L, 20),
                row(7, "acquired", "l-3", "r-2", 3L, 20)));
    var after = Fixtures.history(100).runs(RunAssembly.runs(rows, later)).build();

    assertThat(new FifoQueues().check(after))
        .extracting(v -> v.ids())
        .containsExactly(List.of("acme/web", "r-3", "r-2"));
  }
}
