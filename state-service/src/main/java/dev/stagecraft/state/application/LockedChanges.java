package dev.stagecraft.state.application;

import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.SQLException;
import java.util.List;

/**
 * Port: a write that holds the workspace's row lock for its whole transaction (implemented by the
 * store, {@code adapter.db}): lock the workspace, fold, let the caller decide on the state and the
 * newest fencing token, append what it decided (advancing the newest token to the writer's when it
 * is newer), commit. A sequence a fast append took meanwhile makes the store decide again.
 */
public interface LockedChanges {

  /**
   * Who writes: the workspace, the writer's fencing token (a write made without holding the lock
   * passes the newest token seen, which is not stale but advances nothing), the prefix of the
   * appended events' ids (a fresh id is added), the run and the actor stored with them (either may
   * be null).
   */
  record Writer(
      String tenant,
      String workspace,
      long fencingToken,
      String eventIdPrefix,
      String runId,
      String actor) {}

  /** A decision and the events it appends: none (null) when it writes nothing. */
  record Decided<D>(D decision, List<StateEvent> events) {}

  /** Decides on the current state and the newest fencing token; pure. */
  @FunctionalInterface
  interface Decide<D> {
    Decided<D> decide(WorkspaceState current, long newestFencingToken);
  }

  /**
   * Decides under the workspace's row lock and appends the decided events; nothing is written when
   * they are null. The store remembers the resulting fold either way.
   *
   * @return the decision
   */
  <D> D decideAndAppend(Writer writer, Decide<D> decide) throws SQLException;
}
