package dev.stagecraft.chaos.source;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.LockTenure;
import dev.stagecraft.chaos.history.WorkspaceKey;
import dev.stagecraft.chaos.invariant.OneLockHolder;
import dev.stagecraft.chaos.invariant.ViolationKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockAuditTrailTest {
  static final WorkspaceKey WEB = new WorkspaceKey("acme", "web");

  static LockAuditRow row(long id, String type, String lockId, String holder, Long token, long at) {
    return new LockAuditRow(id, "acme", "web", type, lockId, holder, token, null, t(at));
  }

  @Test
  void pairsEachGrantWithItsEndAndKeepsTheOpenOne() {
    LockAuditTrail trail =
        LockAuditTrail.of(
            List.of(
                row(4, "expired", "l-1", "r-1", 1L, 40),
                row(1, "acquired", "l-1", "r-1", 1L, 0),
                row(2, "enqueued", null, "r-2", null, 1),
                row(5, "acquired", "l-2", "r-2", 2L, 40)));

    assertThat(trail.tenures())
        .containsExactly(
            new LockTenure("acme", "web", "r-1", 1, t(0), t(40), "expired"),
            new LockTenure("acme", "web", "r-2", 2, t(40), null, null));
    assertThat(trail.arrival(WEB, "r-2")).contains(2L);
    assertThat(trail.firstGrant(WEB, "r-2")).contains(t(40));
    assertThat(trail.problems()).isEmpty();
  }

  @Test
  void aNewerCoalescedRequestTakesTheReplacedOnesPlace() {
    LockAuditTrail trail =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 0),
                row(2, "enqueued", null, "r-2", null, 1),
                row(3, "enqueued", null, "r-3", null, 2),
                new LockAuditRow(4, "acme", "web", "superseded", null, "r-2", null, "r-4", t(3))));

    assertThat(trail.superseded(WEB, "r-2")).isTrue();
    assertThat(trail.superseded(WEB, "r-4")).isFalse();
    assertThat(trail.arrival(WEB, "r-4")).contains(2L);
  }

  @Test
  void anAbandonedHolderThatAsksAgainQueuesAnew() {
    LockAuditTrail trail =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 0),
                row(2, "enqueued", null, "r-2", null, 1),
                row(3, "enqueued", null, "r-3", null, 2),
                row(4, "abandoned", null, "r-2", null, 20),
                row(5, "enqueued", null, "r-2", null, 25)));

    assertThat(trail.arrival(WEB, "r-2")).contains(5L);
    assertThat(trail.arrival(WEB, "r-3")).contains(3L);
  }

  @Test
  void aHolderThatHeldTheLockKeepsItsPlaceWhenALaterAskIsAbandoned() {
    // r-1 held the lock, its planner restarted, the carried-on run asked again and gave up: it
    // started from its first place (the 30-minute soak's FIFO report on such a run was false)
    LockAuditTrail trail =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 0),
                row(2, "expired", "l-1", "r-1", 1L, 30),
                row(3, "enqueued", null, "r-1", null, 31),
                row(4, "abandoned", null, "r-1", null, 60)));

    assertThat(trail.arrival(WEB, "r-1")).contains(1L);
    assertThat(trail.firstGrant(WEB, "r-1")).isPresent();
  }

  @Test
  void anEndWithoutItsGrantIsAProblemNotATenure() {
    LockAuditTrail trail = LockAuditTrail.of(List.of(row(9, "released", "l-0", "r-0", 1L, 5)));

    assertThat(trail.tenures()).isEmpty();
    assertThat(trail.problems())
        .containsExactly(
            "lock audit row 9: released of lock l-0 in acme/web without its acquired row (the trail"
                + " starts later?)");
  }

  @Test
  void aZombieGrantInTheTrailIsFoundByTheChecker() {
    LockAuditTrail trail =
        LockAuditTrail.of(
            List.of(
                row(1, "acquired", "l-1", "r-1", 1L, 0),
                row(2, "acquired", "l-2", "r-2", 2L, 10),
                row(3, "released", "l-1", "r-1", 1L, 12)));

    var history = dev.stagecraft.chaos.Fixtures.history(100).locks(trail.tenures()).build();

    assertThat(new OneLockHolder().check(history))
        .extracting(v -> v.kind())
        .containsExactly(ViolationKind.TWO_LOCK_HOLDERS);
  }
}
