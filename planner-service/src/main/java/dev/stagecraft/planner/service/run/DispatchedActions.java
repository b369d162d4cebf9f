package dev.stagecraft.planner.service.run;

import java.time.Instant;
import java.util.Collection;
import java.util.Set;

/**
 * Tells whether runs dispatched any action, from the durable record of dispatches (the {@code
 * stagecraft.actions} topic) rather than from the planner's records, which may lag behind after a
 * crash (docs/adr/0025). A restarted planner asks before it resumes a run: one that dispatched is
 * never started again (docs/adr/0029).
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
}
