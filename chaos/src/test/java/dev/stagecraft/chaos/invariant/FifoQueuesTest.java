package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class FifoQueuesTest {
  private final FifoQueues check = new FifoQueues();

  @Test
  void runsStartedInQueueOrderAreFine() {
    History h =
        history(100)
            .run(applied("r-1", "web", 0, 1, 10))
            .run(applied("r-2", "web", 2, 10, 20))
            // replaced by r-4 while it waited: it gives up its place
            .run(new RunRecord("r-3", "acme", "web", t(3), null, t(5), "canceled", 3, true))
            .run(applied("r-4", "web", 4, 20, 30))
            // queued earlier but never started (canceled while waiting)
            .run(new RunRecord("r-5", "acme", "web", t(5), null, t(8), "canceled", 5, false))
            .run(applied("r-6", "web", 6, 30, 40))
            // another workspace has its own queue
            .run(applied("r-7", "db", 1, 2, 3))
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void reportsARunThatOvertookAnEarlierOne() {
    RunRecord first = applied("r-1", "web", 0, 1, 10);
    RunRecord second = applied("r-2", "web", 2, 20, 30);
    RunRecord third = applied("r-3", "web", 3, 11, 19);
    History h = history(100).run(third).run(first).run(second).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.QUEUE_OVERTAKEN,
                "workspace acme/web: run r-3 (queued #3) started at 2026-12-05T10:00:11Z, before run"
                    + " r-2 (queued #2, earlier) which started at 2026-12-05T10:00:20Z",
                List.of("acme/web", "r-3", "r-2"),
                List.of(second, third)));
  }

  @Test
  void aCoalescedRunCannotHideAnOvertaking() {
    History h =
        history(100)
            .run(applied("r-1", "web", 0, 20, 30))
            .run(new RunRecord("r-2", "acme", "web", t(1), t(5), t(9), "applied", 1, true))
            .run(applied("r-3", "web", 2, 10, 15))
            .build();

    assertThat(check.check(h))
        .extracting(Violation::ids)
        .containsExactly(List.of("acme/web", "r-3", "r-1"));
  }

  /**
   * A chat-ops burst on a coalescing workspace (the soak's {@code co-0}): b-1 holds the lock, b-2
   * and b-3 are superseded in turn while queued, b-4 takes their place (queue order 2, as the lock
   * audit trail gives it); a trigger of another kind queued after b-2 (x, order 3) must start after
   * b-4. Starting before it is reported.
   */
  @Test
  void aCoalescedBurstKeepsItsPlaceAndOvertakingItIsReported() {
    History.Builder burst =
        history(100)
            .run(applied("b-1", "co-0", 0, 1, 10))
            .run(new RunRecord("b-2", "acme", "co-0", t(1), null, t(2), "canceled", 2, true))
            .run(new RunRecord("b-3", "acme", "co-0", t(2), null, t(3), "canceled", 2, true));
    History fine =
        burst
            .run(new RunRecord("b-4", "acme", "co-0", t(3), t(10), t(20), "applied", 2, false))
            .run(new RunRecord("x", "acme", "co-0", t(2), t(20), t(30), "applied", 3, false))
            .build();
    assertThat(check.check(fine)).isEmpty();

    History overtaken =
        history(100)
            .runs(fine.runs().subList(0, 3))
            .run(new RunRecord("b-4", "acme", "co-0", t(3), t(25), t(35), "applied", 2, false))
            .run(new RunRecord("x", "acme", "co-0", t(2), t(10), t(20), "applied", 3, false))
            .build();
    assertThat(check.check(overtaken))
        .extracting(Violation::ids)
        .containsExactly(List.of("acme/co-0", "x", "b-4"));
  }
}
