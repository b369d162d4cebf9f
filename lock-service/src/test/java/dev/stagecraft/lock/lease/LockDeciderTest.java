package dev.stagecraft.lock.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.lock.lease.LockDecider.AcquireResult;
import dev.stagecraft.lock.lease.LockDecider.AcquireResult.Granted;
import dev.stagecraft.lock.lease.LockDecider.AcquireResult.Queued;
import dev.stagecraft.lock.lease.LockDecider.Decision;
import dev.stagecraft.lock.lease.LockDecider.HeartbeatResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Given a lock, when a command arrives, then these events and this answer. */
class LockDeciderTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

  private final TestClock clock = new TestClock(T0);
  private final AtomicInteger ids = new AtomicInteger();
  private final LockDecider decider =
      new LockDecider(clock, () -> "lock-" + ids.incrementAndGet(), Duration.ofSeconds(120));
  private WorkspaceLock lock = WorkspaceLock.FREE;

  private AcquireResult acquire(String holder) {
    Decision<AcquireResult> d = decider.acquire(lock, holder, LEASE, "info");
    lock = lock.applyAll(d.events());
    return d.result();
  }

  private void release(String lockId) {
    lock = lock.applyAll(decider.release(lock, lockId).events());
  }

  private HeartbeatResult heartbeat(String lockId) {
    Decision<HeartbeatResult> d = decider.heartbeat(lock, lockId);
    lock = lock.applyAll(d.events());
    return d.result();
  }

  private static LockLease granted(AcquireResult result) {
    assertThat(result).isInstanceOf(Granted.class);
    return ((Granted) result).lease();
  }

  @Test
  void grantsAFreeLockWithTheFirstFencingToken() {
    Decision<AcquireResult> d = decider.acquire(WorkspaceLock.FREE, "run-a", LEASE, "plan");

    LockLease lease = granted(d.result());
    assertThat(lease.fencingToken()).isEqualTo(1);
    assertThat(lease.leaseExpiresAt()).isEqualTo(T0.plus(LEASE));
    assertThat(d.events()).containsExactly(new LockEvent.Acquired(lease));
  }

  @Test
  void enqueuesWaitersOnceInFifoOrder() {
    acquire("a");

    assertThat(acquire("b")).isEqualTo(new Queued(1));
    assertThat(acquire("c")).isEqualTo(new Queued(2));
    assertThat(acquire("b")).isEqualTo(new Queued(1));
    assertThat(acquire("c")).isEqualTo(new Queued(2));
    assertThat(lock.queue()).extracting(QueuedHolder::holder).containsExactly("b", "c");
  }

  @Test
  void onlyTheHeadOfTheQueueMayTakeAReleasedLock() {
    LockLease a = granted(acquire("a"));
    acquire("b");
    acquire("c");
    release(a.lockId());

    assertThat(acquire("c")).isEqualTo(new Queued(2));
    assertThat(acquire("d")).isEqualTo(new Queued(3));
    LockLease b = granted(acquire("b"));
    assertThat(lock.queue()).extracting(QueuedHolder::holder).containsExactly("c", "d");
    release(b.lockId());
    assertThat(granted(acquire("c")).holder()).isEqualTo("c");
  }

  @Test
  void fencingTokensStrictlyIncreaseAndAreNeverReused() {
    long previous = 0;
    for (int i = 0; i < 5; i++) {
      LockLease lease = granted(acquire("run-" + i));
      assertThat(lease.fencingToken()).isGreaterThan(previous);
      previous = lease.fencingToken();
      release(lease.lockId());
    }
    assertThat(lock.lastFencingToken()).isEqualTo(5);
  }

  @Test
  void anExpiredLeaseFreesTheLockForTheQueueHead() {
    LockLease a = granted(acquire("a"));
    acquire("b");
    acquire("c");
    clock.advance(LEASE);

    Decision<AcquireResult> notHead = decider.acquire(lock, "c", LEASE, null);
    lock = lock.applyAll(notHead.events());

    assertThat(notHead.events().get(0))
        .isEqualTo(new LockEvent.Expired(a.lockId(), "a", a.fencingToken()));
    assertThat(notHead.result()).isEqualTo(new Queued(2));
    LockLease b = granted(acquire("b"));
    assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
  }

  @Test
  void heartbeatAfterExpiryLosesTheLease() {
    LockLease a = granted(acquire("a"));
    clock.advance(LEASE.plusSeconds(1));

    assertThat(heartbeat(a.lockId())).isInstanceOf(HeartbeatResult.Lost.class);
    assertThat(lock.current()).isNull();
    assertThat(heartbeat(a.lockId())).isInstanceOf(HeartbeatResult.Lost.class);
  }

  @Test
  void heartbeatExtendsTheLease() {
    LockLease a = granted(acquire("a"));
    clock.advance(Duration.ofSeconds(20));

    assertThat(heartbeat(a.lockId()))
        .isEqualTo(new HeartbeatResult.Renewed(T0.plusSeconds(20).plus(LEASE)));
    clock.advance(Duration.ofSeconds(20));
    assertThat(heartbeat(a.lockId())).isInstanceOf(HeartbeatResult.Renewed.class);
  }

  @Test
  void heartbeatOfAnotherLockIdIsLost() {
    acquire("a");

    assertThat(heartbeat("someone-else")).isInstanceOf(HeartbeatResult.Lost.class);
  }

  @Test
  void releaseIsIdempotent() {
    LockLease a = granted(acquire("a"));
    release(a.lockId());

    assertThat(decider.release(lock, a.lockId()).events()).isEmpty();
    assertThat(decider.release(lock, "unknown").result()).isFalse();
  }

  @Test
  void aRetriedAcquireOfTheHolderReturnsTheSameLease() {
    LockLease first = granted(acquire("a"));

    Decision<AcquireResult> again = decider.acquire(lock, "a", LEASE, null);

    assertThat(again.events()).isEmpty();
    assertThat(granted(again.result())).isEqualTo(first);
  }

  @Test
  void queuedHoldersThatStopAskingLoseTheirPlace() {
    LockLease a = granted(acquire("a"));
    acquire("b");
    clock.advance(Duration.ofSeconds(60));
    acquire("c");
    release(a.lockId());
    clock.advance(Duration.ofSeconds(61)); // b last asked 121 s ago, c 61 s ago

    Decision<AcquireResult> d = decider.acquire(lock, "c", LEASE, null);

    assertThat(d.events()).first().isEqualTo(new LockEvent.Abandoned("b"));
    assertThat(granted(d.result()).holder()).isEqualTo("c");
  }

  @Test
  void expireSweepFreesAnOverdueLease() {
    LockLease a = granted(acquire("a"));
    clock.advance(LEASE);

    Decision<WorkspaceLock> d = decider.expire(lock);

    assertThat(d.events())
        .isEqualTo(List.of(new LockEvent.Expired(a.lockId(), "a", a.fencingToken())));
    assertThat(d.result().current()).isNull();
    assertThat(d.result().lastFencingToken()).isEqualTo(1);
  }

  @Test
  void refusesWithoutQueueingWhenTheCallerAsksNotToWaitInLine() {
    LockLease held = granted(acquire("run-a"));

    Decision<AcquireResult> d = decider.acquire(lock, "terraform:x", LEASE, "{}", false);

    assertThat(d.result()).isEqualTo(new AcquireResult.Refused(held, 0));
    assertThat(lock.applyAll(d.events()).queue()).isEmpty();
    release(held.lockId());
    assertThat(granted(decider.acquire(lock, "terraform:x", LEASE, "{}", false).result()))
        .extracting(LockLease::fencingToken)
        .isEqualTo(2L);
  }

  @Test
  void forceReleaseFreesTheNamedLockAndRecordsWhoAndWhy() {
    LockLease held = granted(acquire("run-a"));
    acquire("run-b");

    Decision<java.util.Optional<LockLease>> d =
        decider.forceRelease(lock, held.lockId(), "api-token:ab", "runner crashed");
    lock = lock.applyAll(d.events());

    assertThat(d.result()).contains(held);
    assertThat(d.events())
        .containsExactly(
            new LockEvent.ForceReleased(
                held.lockId(),
                "run-a",
                held.fencingToken(),
                "api-token:ab",
                "runner crashed",
                "rest",
                held.lockId()));
    assertThat(granted(acquire("run-b")).fencingToken()).isEqualTo(held.fencingToken() + 1);
  }

  @Test
  void forceReleaseRecordsHowItCameInAndTheIdTheCallerKnowsTheLockBy() {
    LockLease held = granted(acquire("terraform:tf-id-1"));

    Decision<java.util.Optional<LockLease>> d =
        decider.forceRelease(
            lock, held.lockId(), "api-token:ab", "ci died", "terraform-http-backend", "tf-id-1");

    assertThat(d.events())
        .containsExactly(
            new LockEvent.ForceReleased(
                held.lockId(),
                "terraform:tf-id-1",
                held.fencingToken(),
                "api-token:ab",
                "ci died",
                "terraform-http-backend",
                "tf-id-1"));
  }

  @Test
  void forceReleaseOfALockThatNoLongerHoldsChangesNothing() {
    LockLease first = granted(acquire("run-a"));
    release(first.lockId());
    LockLease second = granted(acquire("run-b"));

    Decision<java.util.Optional<LockLease>> d =
        decider.forceRelease(lock, first.lockId(), "api-token:ab", "stale id");

    assertThat(d.result()).isEmpty();
    assertThat(d.events()).isEmpty();
    assertThat(lock.current()).isEqualTo(second);
  }

  private AcquireResult acquireKeyed(String holder, String key) {
    Decision<AcquireResult> d = decider.acquire(lock, holder, LEASE, "info", true, key);
    lock = lock.applyAll(d.events());
    return d.result();
  }

  @Test
  void aNewerRequestWithTheSameCoalescingKeyTakesTheQueuedOnesPlace() {
    acquire("running");
    acquireKeyed("deploy-r1", "apply:prod");
    acquireKeyed("other", "apply:staging");

    assertThat(acquireKeyed("deploy-r2", "apply:prod")).isEqualTo(new Queued(1));

    assertThat(lock.queue()).extracting(QueuedHolder::holder).containsExactly("deploy-r2", "other");
    assertThat(acquireKeyed("deploy-r1", "apply:prod"))
        .isEqualTo(new AcquireResult.Superseded("deploy-r2", "apply:prod"));
    assertThat(acquire("deploy-r1"))
        .as("a superseded holder is told, not queued again")
        .isEqualTo(new AcquireResult.Superseded("deploy-r2", "apply:prod"));
    assertThat(lock.queue()).extracting(QueuedHolder::holder).containsExactly("deploy-r2", "other");
  }

  @Test
  void theCurrentHolderIsNeverSupersededAndUnkeyedRequestsNeverCoalesce() {
    LockLease running = granted(acquireKeyed("r1", "apply:prod"));
    acquire("plain-1");

    assertThat(acquireKeyed("r2", "apply:prod")).isEqualTo(new Queued(2));
    assertThat(acquire("plain-2")).isEqualTo(new Queued(3));
    assertThat(lock.current()).isEqualTo(running);
    assertThat(lock.queue())
        .extracting(QueuedHolder::holder)
        .containsExactly("plain-1", "r2", "plain-2");
  }

  @Test
  void aSupersededNoteIsForgottenAfterTheQueueTimeout() {
    acquire("running");
    acquireKeyed("old", "k");
    acquireKeyed("new", "k");
    clock.advance(Duration.ofSeconds(121));

    Decision<AcquireResult> d = decider.acquire(lock, "someone", LEASE, null);

    assertThat(d.events()).contains(new LockEvent.SupersededForgotten("old"));
    assertThat(lock.applyAll(d.events()).superseded()).isEmpty();
  }

  @Test
  void severalWorkspacesAreTakenAllOrNone() {
    java.util.SortedMap<String, WorkspaceLock> free = new java.util.TreeMap<>();
    free.put("a", WorkspaceLock.FREE);
    free.put("b", WorkspaceLock.FREE);
    LockDecider.AllOrNothing all = decider.acquireAll(free, "multi", LEASE, null);
    assertThat(all.granted()).isTrue();
    assertThat(all.decisions().keySet()).containsExactly("a", "b");
    assertThat(all.decisions().values())
        .allSatisfy(d -> assertThat(d.result()).isInstanceOf(Granted.class));

    java.util.SortedMap<String, WorkspaceLock> oneHeld = new java.util.TreeMap<>(free);
    oneHeld.put(
        "b",
        WorkspaceLock.FREE.applyAll(
            decider.acquire(WorkspaceLock.FREE, "x", LEASE, null).events()));
    LockDecider.AllOrNothing none = decider.acquireAll(oneHeld, "multi", LEASE, null);
    assertThat(none.granted()).isFalse();
    assertThat(none.decisions().values()).allSatisfy(d -> assertThat(d.events()).isEmpty());
    assertThat(none.decisions().get("b").result()).isInstanceOf(AcquireResult.Refused.class);
  }
}
