package dev.stagecraft.planner.service.source;

/**
 * Starts the run a repository push asks for (the push webhook calls it once per workspace that
 * follows the pushed branch, docs/workspaces.md). Implemented by the run intake.
 */
@FunctionalInterface
public interface PushRuns {
  /** What came of one workspace's run: started, or why not. */
  sealed interface Outcome {}

  /** The run started (or, for a delivery seen before, the run it started then). */
  record Started(String runId, boolean replayed) implements Outcome {}

  /** Nothing started, and why (shown in the webhook's answer). */
  record Refused(String reason) implements Outcome {}

  /**
   * Starts a run of {@code workspace} at {@code commit}, at most once per {@code deliveryId} and
   * workspace.
   *
   * @param message shown with the run (the pusher and the head commit's subject)
   */
  Outcome start(String tenant, String workspace, String commit, String deliveryId, String message);
}
