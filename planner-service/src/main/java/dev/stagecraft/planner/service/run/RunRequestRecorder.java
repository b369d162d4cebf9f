package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.journal.RecordingLane;

/**
 * Records what a run was requested with, durably, so that a restarted planner instance can start it
 * again (docs/runs.md "Restart", docs/adr/0029). The coordinator calls it once per new run, on the
 * run's {@link RecordingLane} right after the run's {@code pending} record: off the run's path, and
 * before {@code POST /runs} answers (the answer waits for the lane).
 *
 * <p>Implementations must be thread-safe and must not throw: a request that cannot be recorded only
 * means the run cannot be resumed after a restart (it is then ended {@code errored}).
 */
public interface RunRequestRecorder {
  /** Records nothing (tests, a planner without a database). */
  RunRequestRecorder NONE = (runId, request, awaitingApproval, pendingMessage) -> {};

  /**
   * @param request the full request, supporting files included
   * @param awaitingApproval whether a plan with changes waits for approval
   * @param pendingMessage the message of the run's {@code pending} transition, or null
   */
  void record(String runId, RunRequest request, boolean awaitingApproval, String pendingMessage);
}
