package dev.stagecraft.schemas.lock;

/**
 * A workspace lock was released by someone other than its holder ({@code stagecraft force-unlock},
 * the public REST endpoint, or Terraform's {@code force-unlock} over the HTTP backend). The same
 * fact is recorded in the workspace's state history ({@code lock_force_unlocked}).
 *
 * @param lockId the released lock's id as the caller named it (a Terraform LockInfo ID for locks
 *     taken over the HTTP backend, else the lock service's lock id)
 * @param holder who held the lock (lock-service holder name)
 * @param fencingToken the released lease's fencing token; writes with it are refused from now on
 * @param actor who forced it (an API token's actor name)
 * @param reason why, as the caller gave it
 * @param via {@code rest} or {@code terraform-http-backend}
 */
public record LockForceUnlocked(
    String lockId, String holder, long fencingToken, String actor, String reason, String via)
    implements LockEvent {}
