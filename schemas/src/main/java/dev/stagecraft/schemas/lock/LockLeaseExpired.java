package dev.stagecraft.schemas.lock;

import java.time.Instant;

/**
 * A workspace lock's lease ran out without a heartbeat: the lock service recorded the expiry and
 * the lock is free for the head of the queue. Published by the lock service from its audit trail
 * (at least once; the envelope id {@code lock-lease-expired-<audit row id>} is the same on every
 * redelivery, so consumers drop duplicates by id). Writes with {@code fencingToken} are refused
 * once a newer token is issued; a run holding this lock is ended by its planner.
 *
 * @param lockId the expired lock's id (lock service)
 * @param holder who held it (a run id, or {@code terraform:<LockInfo ID>} for a Terraform client)
 * @param fencingToken the expired lease's fencing token
 * @param recordedAt when the lock service recorded the expiry (at or shortly after the lease's end,
 *     within the expiry sweep interval)
 */
public record LockLeaseExpired(String lockId, String holder, long fencingToken, Instant recordedAt)
    implements LockEvent {}
