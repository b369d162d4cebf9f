package dev.stagecraft.planner.service.run;

/** Port to lock-service: one lock per workspace, with a lease and a fencing token. */
public interface WorkspaceLocks {

  /** Either a granted lock or a queue position. */
  sealed interface Acquisition permits Granted, Queued, Superseded {}

  record Granted(String lockId, long fencingToken) implements Acquisition {}

  record Queued(int position) implements Acquisition {}

  /**
   * The holder's queued request was replaced by a newer request with the same coalescing key
   * (docs/adr/0017, 0023): it is no longer queued and must stop asking.
   *
   * @param byHolder the holder of the newer request that took its place
   */
  record Superseded(String byHolder) implements Acquisition {}

  /**
   * Asks for the lock, waiting server-side up to {@code waitSeconds}. Idempotent by {@code holder}:
   * asking again keeps the holder's place in the FIFO queue.
   */
  Acquisition acquire(
      String tenant,
      String workspace,
      String holder,
      int leaseSeconds,
      int waitSeconds,
      String info);

  /**
   * As {@link #acquire(String, String, String, int, int, String)}, with a coalescing key: when
   * {@code holder} is not queued yet and a queued request has the same key, {@code holder} takes
   * its place and the older holder gets {@link Superseded} from then on. A null key is a plain
   * acquire. The default ignores the key (for locks that do not coalesce).
   */
  default Acquisition acquire(
      String tenant,
      String workspace,
      String holder,
      int leaseSeconds,
      int waitSeconds,
      String info,
      String coalescingKey) {
    return acquire(tenant, workspace, holder, leaseSeconds, waitSeconds, info);
  }

  /** Renews the lease; false when it was lost (the run must stop). */
  boolean heartbeat(String tenant, String workspace, String lockId);

  void release(String tenant, String workspace, String lockId);
}
