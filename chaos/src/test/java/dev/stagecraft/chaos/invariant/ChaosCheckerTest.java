package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.History;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChaosCheckerTest {
  private final ChaosChecker checker = ChaosChecker.all(Duration.ofSeconds(20));

  static History.Builder clean() {
    return history(100)
        .fault(kill("executor-1", 5, 10))
        .run(applied("r-1", "web", 0, 1, 9))
        .run(applied("r-2", "web", 1, 9, 20))
        .execution(ran("r-1", "a#0", "executor-1", 2))
        .report(reported("r-1", "a#0", "create", "interrupted", true, 8))
        .state(fenced("web", 1, 1, 1))
        .state(write("web", 2, 1, 1, 8))
        .state(fenced("web", 3, 2, 9))
        .lock(held("web", "r-1", 1, 1, 9L))
        .lock(held("web", "r-2", 2, 9, 20L))
        .event(up("e-1", 2))
        .event(down("e-1", 3))
        .access(read("acme", "acme", "GET /api/v1/runs/r-1", 30));
  }

  @Test
  void aCleanHistoryHasNoViolation() {
    assertThat(checker.check(clean().build())).isEmpty();
  }

  @Test
  void checksEveryInvariantFamily() {
    assertThat(checker.invariants())
        .extracting(Invariant::name)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(ViolationKind.values())
                .map(ViolationKind::invariant)
                .distinct()
                .toList());
  }

  @Test
  void findsEveryBrokenPromiseInOneHistoryInReportOrder() {
    History broken =
        clean()
            .run(running("r-3", "web", 2, 3)) // stuck, and overtook r-2 (queued 1, started 9)
            .execution(ran("r-1", "a#0", "executor-2", 12)) // a#0 again
            .state(write("web", 5, 2, 1, 12)) // gap (4 missing) and a stale token
            .lock(held("web", "r-3", 3, 15, null)) // while r-2 holds it
            .event(up("e-2", 4))
            .access(read("globex", "acme", "GET /api/v1/runs/r-1", 31))
            .build();

    assertThat(checker.check(broken))
        .extracting(Violation::kind)
        .containsExactly(
            ViolationKind.RUN_NOT_ENDED,
            ViolationKind.STEP_EXECUTED_TWICE,
            ViolationKind.STATE_SEQUENCE_GAP,
            ViolationKind.STATE_WRITE_STALE_TOKEN,
            ViolationKind.TWO_LOCK_HOLDERS,
            ViolationKind.EVENT_LOST,
            ViolationKind.QUEUE_OVERTAKEN,
            ViolationKind.CROSS_TENANT_READ);
    assertThat(checker.check(broken)).isEqualTo(checker.check(broken));
    assertThat(List.copyOf(checker.check(broken))).isSortedAccordingTo(Violation.ORDER);
  }
}
