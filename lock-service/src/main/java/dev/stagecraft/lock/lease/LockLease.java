package dev.stagecraft.lock.lease;

import java.time.Duration;
import java.time.Instant;

/**
 * A granted lock: who holds it, its fencing token and until when the lease runs.
 *
 * @param leaseDuration how long each heartbeat extends the lease
 */
public record LockLease(
    String lockId,
    String holder,
    long fencingToken,
    Instant acquiredAt,
    Duration leaseDuration,
    Instant leaseExpiresAt,
    String info) {

  /** A lease is over at its expiry instant (not after). */
  public boolean expiredAt(Instant now) {
    return !now.isBefore(leaseExpiresAt);
  }
}
