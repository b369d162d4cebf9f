package dev.stagecraft.lock.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.Supplier;

/**
 * Decides lock commands: {@code decide(command, current) → (events, result)}. Time and lock ids are
 * injected. Rules:
 *
 * <ul>
 *   <li>Fencing tokens strictly increase per workspace and are never reused (the counter survives
 *       release).
 *   <li>A holder that asks while the lock is held, or while others queue ahead of it, is enqueued
 *       once (idempotent by holder) and learns its 1-based position.
 *   <li>A free lock (released, or lease expired) goes only to the head of the queue — or to anyone
 *       when nobody queues.
 *   <li>A heartbeat after the lease expired is refused: the lease is lost.
 *   <li>Queued holders that have not asked for longer than the queue timeout lose their place, so a
 *       crashed waiter cannot block the queue forever.
 * </ul>
 */
public final class LockDecider {
  private final Clock clock;
  private final Supplier<String> lockIds;
  private final Duration queueTimeout;

  public LockDecider(Clock clock, Supplier<String> lockIds, Duration queueTimeout) {
    this.clock = clock;
    this.lockIds = lockIds;
    this.queueTimeout = queueTimeout;
  }

  /** Events to persist and the answer to the caller. */
  public record Decision<R>(List<LockEvent> events, R result) {
    public Decision {
      events = List.copyOf(events);
    }
  }

  /** Result of an acquire. */
  public sealed interface AcquireResult {
    record Granted(LockLease lease) implements AcquireResult {}

    /**
     * @param position 1 = next in line
     */
    record Queued(int position) implements AcquireResult {}

    /**
     * Not granted and not queued: the caller asked not to wait in line ({@code enqueue = false}).
     *
     * @param held the current lease, or null when the lock is free but others queue ahead
     * @param queueLength how many holders wait in line
     */
    record Refused(LockLease held, int queueLength) implements AcquireResult {}

    /**
     * The caller's queued request was replaced by a newer request with the same coalescing key: it
     * is not queued any more and should stop asking (the newer request does the work).
     */
    record Superseded(String byHolder, String coalescingKey) implements AcquireResult {}
  }

  /** Result of a heartbeat. */
  public sealed interface HeartbeatResult {
    record Renewed(Instant leaseExpiresAt) implements HeartbeatResult {}

    /** The lease expired or the lock was released/taken over: stop writing. */
    record Lost(String reason) implements HeartbeatResult {}
  }

  public Decision<AcquireResult> acquire(
      WorkspaceLock current, String holder, Duration lease, String info) {
    return acquire(current, holder, lease, info, true);
  }

  /**
   * Acquires the lock for {@code holder}; when it cannot be granted now, the holder joins the queue
   * ({@code enqueue}) or is {@link AcquireResult.Refused refused} without any trace in the queue
   * (for clients that never ask again, such as Terraform over the HTTP backend: a queue entry they
   * leave behind would block the runs behind it until it is abandoned).
   */
  public Decision<AcquireResult> acquire(
      WorkspaceLock current, String holder, Duration lease, String info, boolean enqueue) {
    return acquire(current, holder, lease, info, enqueue, null);
  }

  /**
   * As {@link #acquire(WorkspaceLock, String, Duration, String, boolean)}, with a coalescing key:
   * when {@code holder} is not queued yet and a queued request has the same key, {@code holder}
   * takes that request's place (FIFO position kept) and the older one is {@link
   * AcquireResult.Superseded superseded} — it gets that answer when it asks again. The current
   * holder of the lock is never replaced. A holder that was superseded gets {@code Superseded} (and
   * no events) for the queue timeout, whatever it asks.
   */
  public Decision<AcquireResult> acquire(
      WorkspaceLock current,
      String holder,
      Duration lease,
      String info,
      boolean enqueue,
      String coalescingKey) {
    Instant now = clock.instant();
    LockLease held = current.current();
    if (held != null && held.holder().equals(holder) && !held.expiredAt(now)) {
      return new Decision<>(List.of(), new AcquireResult.Granted(held)); // a retried request
    }
    var note = current.supersededNote(holder);
    if (note.isPresent()) {
      return new Decision<>(
          List.of(),
          new AcquireResult.Superseded(note.get().byHolder(), note.get().coalescingKey()));
    }
    List<LockEvent> events = new ArrayList<>(housekeeping(current, now, holder));
    WorkspaceLock state = current.applyAll(events);
    if (enqueue && coalescingKey != null && state.indexOf(holder).isEmpty()) {
      for (QueuedHolder q : state.queue()) {
        if (coalescingKey.equals(q.coalescingKey())) {
          LockEvent replaced = new LockEvent.Superseded(q.holder(), holder, coalescingKey, now);
          events.add(replaced);
          state = state.apply(replaced);
          break;
        }
      }
    }
    boolean headOrEmpty = state.queue().isEmpty() || state.queue().get(0).holder().equals(holder);
    if (state.current() == null && headOrEmpty) {
      LockLease granted =
          new LockLease(
              lockIds.get(),
              holder,
              state.lastFencingToken() + 1,
              now,
              lease,
              now.plus(lease),
              info);
      events.add(new LockEvent.Acquired(granted));
      return new Decision<>(events, new AcquireResult.Granted(granted));
    }
    if (!enqueue) {
      return new Decision<>(
          events, new AcquireResult.Refused(state.current(), state.queue().size()));
    }
    if (state.indexOf(holder).isPresent()) {
      events.add(new LockEvent.StillWaiting(holder, now));
    } else {
      events.add(new LockEvent.Enqueued(holder, now, coalescingKey));
    }
    int position = state.apply(events.get(events.size() - 1)).indexOf(holder).getAsInt() + 1;
    return new Decision<>(events, new AcquireResult.Queued(position));
  }

  /**
   * Acquires the locks of several workspaces for one holder, all or none: each is decided as a
   * non-queuing {@link #acquire(WorkspaceLock, String, Duration, String, boolean) acquire}; when
   * any is not granted, no events are kept for any workspace (nothing is taken, nobody is queued).
   * The caller must have loaded (and row-locked) the workspaces in the map's order, which is the
   * fixed order every multi-workspace request uses, so two requests for overlapping sets cannot
   * deadlock.
   *
   * @param current the workspaces' locks, in their fixed (sorted) order
   * @return per workspace its decision; {@code granted} when every one was granted
   */
  public AllOrNothing acquireAll(
      SortedMap<String, WorkspaceLock> current, String holder, Duration lease, String info) {
    Map<String, Decision<AcquireResult>> decisions = new LinkedHashMap<>();
    boolean all = true;
    for (var e : current.entrySet()) {
      Decision<AcquireResult> d = acquire(e.getValue(), holder, lease, info, false);
      decisions.put(e.getKey(), d);
      all &= d.result() instanceof AcquireResult.Granted;
    }
    if (!all) {
      decisions.replaceAll((ws, d) -> new Decision<>(List.of(), d.result()));
    }
    return new AllOrNothing(decisions, all);
  }

  /**
   * The outcome of {@link #acquireAll}: per workspace (fixed order) its decision; without {@code
   * granted}, every decision's event list is empty.
   */
  public record AllOrNothing(Map<String, Decision<AcquireResult>> decisions, boolean granted) {
    public AllOrNothing {
      decisions = Collections.unmodifiableMap(new LinkedHashMap<>(decisions));
    }
  }

  public Decision<HeartbeatResult> heartbeat(WorkspaceLock current, String lockId) {
    Instant now = clock.instant();
    LockLease held = current.current();
    if (held == null || !held.lockId().equals(lockId)) {
      return new Decision<>(
          List.of(),
          new HeartbeatResult.Lost("lock " + lockId + " is not held (released or taken over)"));
    }
    if (held.expiredAt(now)) {
      return new Decision<>(
          List.of(new LockEvent.Expired(held.lockId(), held.holder(), held.fencingToken())),
          new HeartbeatResult.Lost(
              "the lease of lock " + lockId + " expired at " + held.leaseExpiresAt()));
    }
    Instant until = now.plus(held.leaseDuration());
    return new Decision<>(
        List.of(new LockEvent.Renewed(lockId, held.holder(), until)),
        new HeartbeatResult.Renewed(until));
  }

  /** Releases the lock if {@code lockId} holds it; otherwise nothing (idempotent). */
  public Decision<Boolean> release(WorkspaceLock current, String lockId) {
    LockLease held = current.current();
    if (held == null || !held.lockId().equals(lockId)) {
      return new Decision<>(List.of(), false);
    }
    return new Decision<>(
        List.of(new LockEvent.Released(lockId, held.holder(), held.fencingToken())), true);
  }

  /**
   * Force-unlock: releases the lock held as {@code lockId} whoever holds it, recording who forced
   * it and why. Refused (empty result, no events) when {@code lockId} does not hold the lock now —
   * a force-unlock names the lock it means, so it can never release a lock taken after the caller
   * looked.
   *
   * @return the released lease, or empty
   */
  public Decision<Optional<LockLease>> forceRelease(
      WorkspaceLock current, String lockId, String actor, String reason) {
    return forceRelease(current, lockId, actor, reason, "rest", lockId);
  }

  /**
   * As {@link #forceRelease(WorkspaceLock, String, String, String)}, recording how the force-unlock
   * came in ({@code via}) and the id the caller knows the lock by ({@code clientLockId}) for the
   * published event.
   */
  public Decision<Optional<LockLease>> forceRelease(
      WorkspaceLock current,
      String lockId,
      String actor,
      String reason,
      String via,
      String clientLockId) {
    LockLease held = current.current();
    if (held == null || !held.lockId().equals(lockId) || held.expiredAt(clock.instant())) {
      return new Decision<>(List.of(), Optional.empty());
    }
    return new Decision<>(
        List.of(
            new LockEvent.ForceReleased(
                lockId, held.holder(), held.fencingToken(), actor, reason, via, clientLockId)),
        Optional.of(held));
  }

  /** Expires an overdue lease and drops abandoned queue entries. */
  public Decision<WorkspaceLock> expire(WorkspaceLock current) {
    List<LockEvent> events = housekeeping(current, clock.instant(), null);
    return new Decision<>(events, current.applyAll(events));
  }

  private List<LockEvent> housekeeping(WorkspaceLock current, Instant now, String caller) {
    List<LockEvent> events = new ArrayList<>();
    LockLease held = current.current();
    if (held != null && held.expiredAt(now)) {
      events.add(new LockEvent.Expired(held.lockId(), held.holder(), held.fencingToken()));
    }
    for (QueuedHolder q : current.queue()) {
      if (!q.holder().equals(caller) && !now.isBefore(q.lastSeenAt().plus(queueTimeout))) {
        events.add(new LockEvent.Abandoned(q.holder()));
      }
    }
    for (SupersededHolder note : current.superseded()) {
      if (!now.isBefore(note.supersededAt().plus(queueTimeout))) {
        events.add(new LockEvent.SupersededForgotten(note.holder()));
      }
    }
    return events;
  }
}
