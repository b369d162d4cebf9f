package dev.stagecraft.planner.service.run.recovery;

import dev.stagecraft.schemas.action.ActionDispatched;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Tells whether runs dispatched any action, and which, from the durable record of dispatches (the
 * {@code stagecraft.actions} topic) rather than from the planner's records, which may lag behind
 * after a crash (docs/adr/0025). A restarted planner asks before it resumes a run: one that
 * dispatched nothing is started again (docs/adr/0029); one that dispatched is carried on from what
 * it dispatched (docs/adr/0035).
 */
public interface DispatchedActions {
  /**
   * @param runIds the runs asked about
   * @param since no dispatch of these runs is older than this (their earliest creation)
   * @return those of {@code runIds} with at least one dispatched action
   * @throws RuntimeException when the record cannot be read: the caller must then assume every run
   *     dispatched
   */
  Set<String> runsWithDispatches(Collection<String> runIds, Instant since);

  /**
   * The dispatches of {@code runId} that the latest {@link #runsWithDispatches} call on this object
   * found, in the order they were published, each action once (the first dispatch of an action id);
   * empty when that call found none of the run. The default keeps none: for test doubles that only
   * answer {@link #runsWithDispatches}.
   *
   * @throws IllegalStateException when a dispatch of the run was found but could not be read (the
   *     caller must not guess what it was), or when this object keeps no dispatches
   */
  default List<Dispatched> dispatchesOf(String runId) {
    throw new IllegalStateException("the dispatched actions of run " + runId + " were not kept");
  }

  /**
   * One {@code action.dispatched} as it was published (sealed parts still sealed).
   *
   * @param dispatchedAt when it was published (the broker record's time)
   * @param taken whether an executor had taken it (the executors' committed offset is past it,
   *     docs/adr/0056): it will not be delivered to an executor again. False when unknown
   */
  record Dispatched(ActionDispatched action, Instant dispatchedAt, boolean taken) {
    /** A dispatch not known to be taken. */
    public Dispatched(ActionDispatched action, Instant dispatchedAt) {
      this(action, dispatchedAt, false);
    }
  }
}
