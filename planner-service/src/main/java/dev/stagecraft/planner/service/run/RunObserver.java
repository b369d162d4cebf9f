package dev.stagecraft.planner.service.run;

import java.time.Instant;

/**
 * Told of every lifecycle transition the {@link RunCoordinator} makes, after the run's fields
 * changed and before the transition is published. The planner records runs through it (so reads
 * survive a restart); the coordinator does not depend on it for anything.
 *
 * <p>Called on whichever thread made the transition (a run's virtual thread, a Kafka listener, an
 * HTTP request), possibly for two transitions of one run at once: an implementation orders them by
 * {@code sequence}, not by arrival. It must not throw; a failure to record is its own to log.
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
