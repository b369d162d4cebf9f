package dev.stagecraft.lock.lease;

import java.time.Instant;

/** Everything that happens to a workspace lock. Applied by {@link WorkspaceLock#apply}. */
public sealed interface LockEvent {

  /** The wire/audit name. */
  String typeName();

  String holder();

  /** The lock was granted with a fresh fencing token; the holder leaves the queue. */
  record Acquired(LockLease lease) implements LockEvent {
    @Override
    public String typeName() {
      return "acquired";
    }

    @Override
    public String holder() {
      return lease.holder();
    }
  }

  /** A heartbeat extended the lease. */
  record Renewed(String lockId, String holder, Instant leaseExpiresAt) implements LockEvent {
    @Override
    public String typeName() {
      return "renewed";
    }
  }

  record Released(String lockId, String holder, long fencingToken) implements LockEvent {
    @Override
    public String typeName() {
      return "released";
    }
  }

  /**
   * Someone other than the holder released the lock (force-unlock), saying who and why. Applied
   * like {@link Released}; audited with the actor and the reason, and published from the audit
   * trail as {@code dev.stagecraft.lock.force-unlocked}.
   *
   * @param via how the force-unlock came in ({@code rest} or {@code terraform-http-backend})
   * @param clientLockId the lock's id as the caller knows it (a Terraform LockInfo ID for locks
   *     taken over the HTTP backend), named in the published event; {@code lockId} when the caller
   *     named none
   */
  record ForceReleased(
      String lockId,
      String holder,
      long fencingToken,
      String actor,
      String reason,
      String via,
      String clientLockId)
      implements LockEvent {
    @Override
    public String typeName() {
      return "force_released";
    }
  }

  /** The lease ran out without a heartbeat; the lock is free for the head of the queue. */
  record Expired(String lockId, String holder, long fencingToken) implements LockEvent {
    @Override
    public String typeName() {
      return "expired";
    }
  }

  /**
   * A holder joined the end of the queue.
   *
   * @param coalescingKey the request's coalescing key, or null
   */
  record Enqueued(String holder, Instant at, String coalescingKey) implements LockEvent {
    public Enqueued(String holder, Instant at) {
      this(holder, at, null);
    }

    @Override
    public String typeName() {
      return "enqueued";
    }
  }

  /**
   * A newer request ({@code byHolder}) with the same coalescing key replaced the queued {@code
   * holder}: it takes the older one's place in the queue, and the older one is told so when it asks
   * again.
   */
  record Superseded(String holder, String byHolder, String coalescingKey, Instant at)
      implements LockEvent {
    @Override
    public String typeName() {
      return "superseded";
    }
  }

  /** A superseded holder's note was kept for the queue timeout and is dropped now. */
  record SupersededForgotten(String holder) implements LockEvent {
    @Override
    public String typeName() {
      return "superseded_forgotten";
    }
  }

  /** A queued holder asked again: it keeps its place. */
  record StillWaiting(String holder, Instant at) implements LockEvent {
    @Override
    public String typeName() {
      return "still_waiting";
    }
  }

  /** A queued holder stopped asking for longer than the queue timeout and lost its place. */
  record Abandoned(String holder) implements LockEvent {
    @Override
    public String typeName() {
      return "abandoned";
    }
  }
}
