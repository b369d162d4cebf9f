package dev.stagecraft.planner.service.run;

/** Port to lock-service: one lock per workspace, with a lease and a fencing token. */
public interface WorkspaceLocks {

  /** Either a granted lock or a queue position. */
  sealed interface Acquisition permits Granted, Queued {}

  record Granted(String lockId, long fencingToken) implements Acquisition {}

  record Queued(int position) implements Acquisition {}

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

  /** Renews the lease; false when it was lost (the run must stop). */
  boolean heartbeat(String tenant, String workspace, String lockId);

  void release(String tenant, String workspace, String lockId);
}
