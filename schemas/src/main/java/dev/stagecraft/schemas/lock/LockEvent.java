package dev.stagecraft.schemas.lock;

/**
 * What travels on {@code stagecraft.lock-events}: a workspace lock ended other than by its holder's
 * release (forced, or its lease expired).
 */
public sealed interface LockEvent permits LockForceUnlocked, LockLeaseExpired {
  String lockId();

  String holder();

  long fencingToken();
}
