package dev.stagecraft.planner.service.run.journal;

import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import java.time.Instant;

/**
 * Told of every lifecycle transition the {@link RunCoordinator} makes, after the run's fields
 * changed. The planner records runs through it (so reads survive a restart); the coordinator does
 * not depend on it for anything and does not wait for it (docs/adr/0025).
 *
 * <p>Called on the run's recording lane (one virtual thread at a time per run), in the order of the
 * run's event sequence, possibly after the transition was published and after the run moved on:
 * read the run's summary for what it is now, the arguments for what the transition was. Calls for
 * different runs may come at once. It must not throw; a failure to record is its own to log. Use
 * {@link RunCoordinator#awaitRecorded} to read what it recorded of a live run.
 */
public interface RunObserver {
  /** Records nothing. */
  RunObserver NONE = (run, sequence, status, message, at) -> {};

  /**
   * @param run the run, already in {@code status} (read its summary for the plan digest)
   * @param sequence the run's event sequence of this transition: increasing per run
   */
  void transitioned(Run run, long sequence, RunStatus status, String message, Instant at);
}
