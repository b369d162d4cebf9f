package dev.stagecraft.planner.service.run.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The words of a run's transitions (docs/runs.md "State machine"), in one place. */
public final class RunMessages {
  private RunMessages() {}

  public static String queued(int position) {
    return "Waiting for the workspace lock (position " + position + " in the queue).";
  }

  public static String superseded(String byRun, String coalescingKey) {
    return "Superseded by run "
        + byRun
        + " (same coalescing key '"
        + coalescingKey
        + "') while queued for the workspace lock; nothing was planned or applied. The newer run"
        + " does the work.";
  }

  public static String leaseExpired(Instant recordedAt, String lockId, long fencingToken) {
    return "Lock lease expired: the lock service recorded at "
        + recordedAt
        + " that the workspace lock of this run (lock "
        + lockId
        + ", fencing token "
        + fencingToken
        + ") was not renewed in time and freed it; the run was stopped, nothing more is"
        + " dispatched and its late state writes are refused. Check the workspace's state and"
        + " start a new run.";
  }

  public static String forceUnlocked(String actor, String reason, long fencingToken) {
    return "Workspace lock forced open by "
        + actor
        + " ("
        + reason
        + "): the lock of this run (fencing token "
        + fencingToken
        + ") was released by force; the run was stopped, nothing more is dispatched and its"
        + " late state writes are refused. Check the workspace's state and start a new run.";
  }

  public static String heartbeatRefused() {
    return "The workspace lock's lease was lost; the run was stopped.";
  }

  public static String staleSerial(long expected, long actual) {
    return "The plan is stale: the workspace's state moved from serial "
        + expected
        + " to "
        + actual
        + " since it was planned. Plan again.";
  }

  public static String savedPlanMismatch() {
    return "The saved plan no longer matches what applying it would do now (the configuration,"
        + " variables or state differ). Create a new plan and apply that.";
  }

  public static String approvalExpired(Duration timeout) {
    return "The plan was not approved within "
        + timeout.toString().substring(2).toLowerCase(Locale.ROOT)
        + " (the approval timeout); the run was discarded and nothing was applied. Start a new"
        + " run.";
  }

  public static String discarded(String by) {
    return "Run discarded by " + by + "; nothing was applied.";
  }

  public static String canceledBeforeApplying(String by) {
    return "Run canceled by " + by + " before it applied anything.";
  }

  /** A canceled run whose started actions all ended; {@code steps} null before it applied. */
  public static String canceledWhileApplying(
      String by, ApplySteps steps, Map<String, String> cutShort) {
    String counts =
        steps == null
            ? ""
            : steps.withStatus(ApplySteps.Status.SUCCEEDED).size()
                + " action(s) completed, "
                + steps.withStatus(ApplySteps.Status.FAILED).size()
                + " failed or stopped; the rest did not run. Instances whose create-time steps"
                + " were stopped are tainted.";
    return "Run canceled by " + by + ". " + counts + cutShortSuffix(cutShort);
  }

  public static String applied(PlanInfo plan) {
    return "Apply complete! Resources: %d added, %d changed, %d destroyed."
        .formatted(plan.toAdd(), plan.toChange(), plan.toDestroy());
  }

  public static String appliedCarriedNothingLeft(long applied) {
    return "Apply complete! "
        + applied
        + " action(s) applied, all dispatched before its planner instance stopped; nothing"
        + " remained.";
  }

  public static String applyFailed(List<String> failed, Map<String, String> cutShort) {
    return "Apply failed: " + String.join(", ", failed) + cutShortSuffix(cutShort);
  }

  public static String carriedFailed(List<String> notSucceeded, Map<String, String> cutShort) {
    return "Apply failed: "
        + String.join(", ", notSucceeded)
        + " did not succeed. Nothing more was dispatched and nothing was run twice."
        + cutShortSuffix(cutShort);
  }

  public static String wouldRepeat(List<String> addresses) {
    return "The plan made again would dispatch "
        + String.join(", ", addresses)
        + " again, which this run dispatched before its planner instance stopped; nothing was"
        + " run twice. Run plan/apply again.";
  }

  public static String restNotApproved(String summary, String why) {
    return summary
        + " is not applied: the run applied a plan approved as a whole, and the plan made again is"
        + " not the rest of it ("
        + why
        + "). Run plan/apply again.";
  }

  public static String outputsNotRecorded(String appliedMessage, String error) {
    return appliedMessage
        + "\nError: the root outputs could not be recorded in the state: "
        + error
        + "\nEvery resource change was recorded; apply again to record the outputs.";
  }

  public static String runFailed(String error) {
    return "Run failed: " + error;
  }

  public static String notStarted(Duration dispatchLease) {
    return "not started: no executor took the action within "
        + dispatchLease.toSeconds()
        + " s (are executors running?); it was not run and state was not changed";
  }

  public static String interrupted(ActionLease lease, Duration actionLease) {
    if (lease.takenBeforeRestart()) {
      return "the action was taken by an executor before its planner instance stopped, and nothing"
          + " was heard from that executor in the "
          + actionLease.toSeconds()
          + " s since the planner carried the run on: it stopped (or it declined the dispatch as"
          + " too old). The action may have partly run; it was not run again. "
          + consequence(lease.action());
    }
    return "the action was interrupted: executor "
        + lease.executorId()
        + " stopped reporting (no heartbeat for "
        + actionLease.toSeconds()
        + " s). A step that had started may have partly run; it was not run again. "
        + consequence(lease.action());
  }

  public static String unheardSinceRestart(ActionLease lease, Duration dispatchLease) {
    return "the action was dispatched before its planner instance stopped and no executor"
        + " reported on it since; its dispatch is older than the dispatch lease ("
        + dispatchLease.toSeconds()
        + " s), so no executor can start it any more. It may have partly run before its planner"
        + " instance stopped; it was not run again. "
        + consequence(lease.action());
  }

  static String consequence(String action) {
    return switch (action == null ? "" : action) {
      case "create", "replace" -> "The instance is tainted; the next apply replaces it.";
      case "delete" ->
          "The instance stays in state; the next apply that removes it runs its destroy-time"
              + " steps again.";
      default -> "The instance is kept as it was.";
    };
  }

  static String cutShortSuffix(Map<String, String> cutShort) {
    StringBuilder b = new StringBuilder();
    cutShort.forEach((address, why) -> b.append('\n').append(address).append(": ").append(why));
    return b.toString();
  }
}
