package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunsEndTest {
  private final RunsEnd check = new RunsEnd(Duration.ofSeconds(20));

  @Test
  void runsThatEndedWithinTheBoundAfterTheLastFaultAreFine() {
    History h =
        history(100)
            .fault(kill("executor-1", 5, 10))
            .run(applied("r-1", "web", 0, 1, 29))
            .run(new RunRecord("r-2", "acme", "web", t(50), null, t(55), "canceled", 50, true))
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void waitingForTheRunsQueuedAheadIsNotBeingStuckButStuckAfterThemIs() {
    // bound 20 s, no fault: r-2 and r-3 queue at 0 behind r-1, which runs until 15
    RunRecord first = applied("r-1", "web", 0, 0, 15);
    RunRecord second = new RunRecord("r-2", "acme", "web", t(0), t(15), t(30), "applied", 1, false);
    RunRecord third = new RunRecord("r-3", "acme", "web", t(0), t(30), t(60), "applied", 2, false);
    History h = history(200).run(first).run(second).run(third).build();

    assertThat(check.check(h))
        .as("r-2 ended 15 s after r-1 (30 s after it queued), in time; r-3 30 s after r-2, late")
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.kind()).isEqualTo(ViolationKind.RUN_ENDED_LATE);
              assertThat(v.ids()).containsExactly("r-3");
              assertThat(v.what()).contains("the run queued ahead of it ended at");
            });
  }

  @Test
  void reportsARunStillRunningAfterItsDeadline() {
    RunRecord stuck = running("r-1", "web", 0, 1);
    History h = history(100).fault(kill("executor-1", 5, 10)).run(stuck).build();

    List<Violation> found = check.check(h);

    assertThat(found)
        .containsExactly(
            new Violation(
                ViolationKind.RUN_NOT_ENDED,
                "run r-1 is still \"applying\" at 2026-12-05T10:01:40Z, after its deadline"
                    + " 2026-12-05T10:00:30Z (the last fault was over at 2026-12-05T10:00:10Z,"
                    + " bound 20.000 s)",
                List.of("r-1"),
                List.of(stuck)));
  }

  @Test
  void aHistoryThatStopsBeforeTheDeadlineCannotVouchForAnUnendedRun() {
    History h =
        history(15).fault(kill("executor-1", 5, 10)).run(running("r-1", "web", 0, 1)).build();

    assertThat(check.check(h))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.kind()).isEqualTo(ViolationKind.RUN_NOT_ENDED);
              assertThat(v.what())
                  .contains("the history stops at 2026-12-05T10:00:15Z, before its deadline")
                  .contains("observe at least 20.000 s after the last fault");
            });
  }

  @Test
  void reportsARunThatEndedAfterItsDeadline() {
    RunRecord late = applied("r-1", "web", 0, 1, 45);
    History h = history(100).fault(kill("executor-1", 5, 10)).run(late).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.RUN_ENDED_LATE,
                "run r-1 ended \"applied\" at 2026-12-05T10:00:45Z, 15.000 s after its deadline"
                    + " 2026-12-05T10:00:30Z (the last fault was over at 2026-12-05T10:00:10Z,"
                    + " bound 20.000 s)",
                List.of("r-1"),
                List.of(late)));
  }

  @Test
  void aRunQueuedAfterTheLastFaultIsBoundFromItsOwnQueueing() {
    History h =
        history(100)
            .fault(kill("executor-1", 5, 10))
            .run(applied("r-1", "web", 60, 61, 75))
            .run(applied("r-2", "web", 60, 76, 81))
            .build();

    assertThat(check.check(h))
        .extracting(Violation::kind, Violation::ids)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(ViolationKind.RUN_ENDED_LATE, List.of("r-2")));
    assertThat(check.check(h).get(0).what()).contains("it was queued at 2026-12-05T10:01:00Z");
  }
}
