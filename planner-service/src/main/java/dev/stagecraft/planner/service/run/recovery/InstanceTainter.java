package dev.stagecraft.planner.service.run.recovery;

import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.planner.service.run.WorkspaceStates;
import dev.stagecraft.planner.service.run.WorkspaceStates.TaintChange;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out {@code stagecraft taint ADDR} and {@code untaint ADDR}: takes the workspace lock (a
 * taint must not interleave with a run that writes the same state), announces the lock's fencing
 * token to the state service, asks the state service to change the mark, and releases the lock
 * whatever happened.
 *
 * <p>A queued request waits for the lock like a run does, asking again while it keeps its place in
 * the FIFO queue; it never gives up on its own (a waiter that stopped asking would hold up the
 * queue until the lock service drops it). The change itself takes milliseconds, well within the
 * lease, so no heartbeat is kept.
 *
 * <p>Thread-safe: holds no mutable state; each call runs on its caller's thread.
 */
public final class InstanceTainter {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceTainter.class);
  static final int LEASE_SECONDS = 30;
  static final int WAIT_SECONDS = 10;

  private final WorkspaceLocks locks;
  private final WorkspaceStates states;
  private final Supplier<String> ids;

  /**
   * @param ids unique suffixes for lock holder names ({@code taint-<id>}, {@code untaint-<id>})
   */
  public InstanceTainter(WorkspaceLocks locks, WorkspaceStates states, Supplier<String> ids) {
    this.locks = locks;
    this.states = states;
    this.ids = ids;
  }

  /**
   * Marks the instance tainted ({@code tainted = true}) or clears its mark.
   *
   * @param requestedBy who asked (lock info and the state event's actor)
   * @return the new serial, or why nothing changed (no such instance, not tainted, bad address)
   * @throws IllegalStateException when the lock or state service failed, or the lock was lost
   */
  public TaintChange change(
      String tenant, String workspace, String address, boolean tainted, String requestedBy) {
    String verb = tainted ? "taint" : "untaint";
    String holder = verb + "-" + ids.get();
    WorkspaceLocks.Granted lock =
        acquire(
            tenant, workspace, holder, "stagecraft " + verb + " " + address + " by " + requestedBy);
    try {
      states.registerFencingToken(tenant, workspace, lock.fencingToken());
      return states.changeTaint(
          tenant, workspace, address, tainted, lock.fencingToken(), requestedBy);
    } finally {
      try {
        locks.release(tenant, workspace, lock.lockId());
      } catch (RuntimeException e) {
        LOG.warn(
            "could not release lock {} held for {} (its lease will expire): {}",
            lock.lockId(),
            holder,
            e.toString());
      }
    }
  }

  private WorkspaceLocks.Granted acquire(
      String tenant, String workspace, String holder, String info) {
    while (true) {
      WorkspaceLocks.Acquisition a =
          locks.acquire(tenant, workspace, holder, LEASE_SECONDS, WAIT_SECONDS, info);
      if (a instanceof WorkspaceLocks.Granted granted) {
        return granted;
      }
      if (Thread.currentThread().isInterrupted()) {
        // asking again keeps the place; not asking lets the lock service drop it in time
        throw new IllegalStateException("interrupted while waiting for the workspace lock");
      }
    }
  }
}
