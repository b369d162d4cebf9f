package dev.stagecraft.lock.adapter;

import dev.stagecraft.lock.adapter.db.LockStore;
import dev.stagecraft.lock.lease.LockDecider;
import dev.stagecraft.lock.lease.LockDecider.AcquireResult;
import dev.stagecraft.lock.lease.LockDecider.HeartbeatResult;
import dev.stagecraft.lock.lease.LockLease;
import dev.stagecraft.lock.lease.WorkspaceLock;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs lock commands against the store and implements the server-side wait of {@code acquire}.
 *
 * <p>Concurrency: many request threads may wait at once. A waiter re-tries its acquire when this
 * process releases a lock (it is notified) and otherwise every {@link #RECHECK} at the latest, to
 * notice expired leases and releases made by other instances. Each retry is a full database
 * transaction, so waiting never affects correctness, only latency.
 */
@Singleton
public final class LockService {
  static final Duration RECHECK = Duration.ofMillis(200);

  private final LockStore store;
  private final LockDecider decider;
  private final Object releases = new Object();
  private final MeterRegistry meters;
  private final AtomicInteger waiting = new AtomicInteger();
  private final DistributionSummary queuePosition;

  public LockService(
      LockStore store,
      Clock clock,
      @Value("${stagecraft.lock.queue-timeout-seconds:120}") long queueTimeoutSeconds,
      MeterRegistry meters) {
    this.store = store;
    this.meters = meters;
    Gauge.builder("stagecraft.lock.waiting.requests", waiting, AtomicInteger::get)
        .description("Acquire requests waiting in a workspace's queue on this instance now")
        .register(meters);
    this.queuePosition =
        DistributionSummary.builder("stagecraft.lock.queue.position")
            .description("Queue position a queued acquire was given (1 = next): the queue depth")
            .register(meters);
    this.decider =
        new LockDecider(
            clock, () -> UUID.randomUUID().toString(), Duration.ofSeconds(queueTimeoutSeconds));
  }

  /** Tries to acquire, waiting up to {@code wait} while queued. */
  public AcquireResult acquire(
      String tenant, String workspace, String holder, Duration lease, Duration wait, String info)
      throws SQLException, InterruptedException {
    return acquire(tenant, workspace, holder, lease, wait, info, true);
  }

  /**
   * Tries to acquire; with {@code enqueue = false} it answers at once and never joins the queue
   * ({@link AcquireResult.Refused}), else it waits up to {@code wait} while queued.
   */
  public AcquireResult acquire(
      String tenant,
      String workspace,
      String holder,
      Duration lease,
      Duration wait,
      String info,
      boolean enqueue)
      throws SQLException, InterruptedException {
    return acquire(tenant, workspace, holder, lease, wait, info, enqueue, null);
  }

  /**
   * As above, with a coalescing key ({@link LockDecider#acquire(WorkspaceLock, String, Duration,
   * String, boolean, String)}): a waiter that a newer request replaces stops waiting at its next
   * re-check with {@link AcquireResult.Superseded}.
   */
  public AcquireResult acquire(
      String tenant,
      String workspace,
      String holder,
      Duration lease,
      Duration wait,
      String info,
      boolean enqueue,
      String coalescingKey)
      throws SQLException, InterruptedException {
    if (!enqueue) {
      long start = System.nanoTime();
      AcquireResult result = acquireNow(tenant, workspace, holder, lease, info, false, null);
      recordWait(result, System.nanoTime() - start);
      return result;
    }
    long start = System.nanoTime();
    long deadline = start + wait.toNanos();
    boolean counted = false;
    try {
      while (true) {
        AcquireResult result =
            store
                .decide(
                    tenant,
                    workspace,
                    s -> decider.acquire(s, holder, lease, info, true, coalescingKey))
                .result();
        long remaining = deadline - System.nanoTime();
        if (!(result instanceof AcquireResult.Queued queued) || remaining <= 0) {
          recordWait(result, System.nanoTime() - start);
          return result;
        }
        if (!counted) {
          counted = true;
          waiting.incrementAndGet();
          queuePosition.record(queued.position());
        }
        long millis = Math.max(1, Math.min(RECHECK.toMillis(), remaining / 1_000_000));
        synchronized (releases) {
          releases.wait(millis); // woken by a release in this process, or re-check on timeout
        }
      }
    } finally {
      if (counted) {
        waiting.decrementAndGet();
      }
    }
  }

  /** The wait of one acquire request (granted or not) by what it ended with. */
  private void recordWait(AcquireResult result, long nanos) {
    String outcome =
        switch (result) {
          case AcquireResult.Granted g -> "granted";
          case AcquireResult.Queued q -> "still_queued";
          case AcquireResult.Refused r -> "refused";
          case AcquireResult.Superseded s -> "superseded";
        };
    Timer.builder("stagecraft.lock.wait")
        .description("Time an acquire request waited for a workspace lock, by how it ended")
        .tag("outcome", outcome)
        .publishPercentileHistogram()
        .register(meters)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * One acquire attempt, never waiting: granted, queued with its position (when {@code enqueue}),
   * refused or superseded — as {@link #acquire(String, String, String, Duration, Duration, String,
   * boolean, String)} with no wait.
   */
  public AcquireResult acquireNow(
      String tenant,
      String workspace,
      String holder,
      Duration lease,
      String info,
      boolean enqueue,
      String coalescingKey)
      throws SQLException {
    return store
        .decide(
            tenant,
            workspace,
            s ->
                enqueue
                    ? decider.acquire(s, holder, lease, info, true, coalescingKey)
                    : decider.acquire(s, holder, lease, info, false))
        .result();
  }

  /**
   * Acquires the locks of all {@code workspaces} for {@code holder} in one transaction, or none
   * ({@link LockDecider#acquireAll}); while not all are free it re-tries (never queuing) until
   * {@code wait} has passed. Row locks are taken in sorted workspace order, so overlapping requests
   * never deadlock. Not fair: a multi-workspace request does not hold places in the workspaces'
   * queues, so steady single-workspace traffic can keep it waiting.
   */
  public LockDecider.AllOrNothing acquireAll(
      String tenant,
      Collection<String> workspaces,
      String holder,
      Duration lease,
      Duration wait,
      String info)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      LockDecider.AllOrNothing result =
          store.decideAll(
              tenant,
              workspaces,
              current -> decider.acquireAll(current, holder, lease, info),
              r -> Map.copyOf(r.decisions()));
      long remaining = deadline - System.nanoTime();
      if (result.granted() || remaining <= 0) {
        return result;
      }
      long millis = Math.max(1, Math.min(RECHECK.toMillis(), remaining / 1_000_000));
      synchronized (releases) {
        releases.wait(millis);
      }
    }
  }

  public HeartbeatResult heartbeat(String tenant, String workspace, String lockId)
      throws SQLException {
    HeartbeatResult result =
        store.decide(tenant, workspace, s -> decider.heartbeat(s, lockId)).result();
    if (result instanceof HeartbeatResult.Lost) {
      wakeWaiters(); // an expiry was recorded: the queue head may take the lock now
    }
    return result;
  }

  public void release(String tenant, String workspace, String lockId) throws SQLException {
    if (store.decide(tenant, workspace, s -> decider.release(s, lockId)).result()) {
      wakeWaiters();
    }
  }

  /**
   * Force-unlock of {@code lockId} by {@code actor} for {@code reason} (audited).
   *
   * @return the released lease, or empty when {@code lockId} does not hold the lock
   */
  public Optional<LockLease> forceRelease(
      String tenant, String workspace, String lockId, String actor, String reason)
      throws SQLException {
    return forceRelease(tenant, workspace, lockId, actor, reason, "rest", lockId);
  }

  /**
   * Force-unlock as above; the audit row written in the same transaction is the outbox entry that
   * {@link LeaseExpirySweeper} publishes as {@code dev.stagecraft.lock.force-unlocked} (with {@code
   * via} and {@code clientLockId}, the id the caller knows the lock by), so the event survives a
   * broker outage at this moment.
   */
  public Optional<LockLease> forceRelease(
      String tenant,
      String workspace,
      String lockId,
      String actor,
      String reason,
      String via,
      String clientLockId)
      throws SQLException {
    var released =
        store
            .decide(
                tenant,
                workspace,
                s -> decider.forceRelease(s, lockId, actor, reason, via, clientLockId))
            .result();
    if (released.isPresent()) {
      wakeWaiters();
    }
    return released;
  }

  /**
   * Records the expiry of every lease that ran out by now (the audit row that {@link
   * LeaseExpirySweeper} publishes) and wakes this process's waiters so the queue head takes the
   * lock at once. Safe to run on every instance at the same time: each expiry is decided under the
   * workspace's row lock, so it is recorded once.
   *
   * @return how many expiries this call recorded
   */
  public int expireOverdue() throws SQLException {
    int expired = 0;
    for (LockStore.WorkspaceRef ws : store.overdue()) {
      if (!store.decide(ws.tenant(), ws.workspace(), decider::expire).events().isEmpty()) {
        expired++;
      }
    }
    if (expired > 0) {
      wakeWaiters();
    }
    return expired;
  }

  /** The lock as it stands now (an overdue lease shows as free; nothing is written). */
  public WorkspaceLock view(String tenant, String workspace) throws SQLException {
    return decider.expire(store.read(tenant, workspace)).result();
  }

  private void wakeWaiters() {
    synchronized (releases) {
      releases.notifyAll();
    }
  }
}
