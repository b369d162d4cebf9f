package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.ApplySteps;
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

  /** A carried-on run that applied the rest of its plan ({@code plan}). */
  public static String appliedCarried(PlanInfo plan, CarriedOver carried) {
    return "Apply complete! "
        + carriedResources(
            carried.succeededResourceCounts(), plan.toAdd(), plan.toChange(), plan.toDestroy());
  }

  /** A carried-on run whose every change was dispatched before the restart. */
  public static String appliedCarriedNothingLeft(CarriedOver carried) {
    return "Apply complete! "
        + carriedResources(carried.succeededResourceCounts(), 0, 0, 0)
        + " "
        + carried.succeededCount()
        + " action(s) applied, all dispatched before its planner instance stopped; nothing"
        + " remained.";
  }

  /**
   * "Resources: A added, C changed, D destroyed." for a carried-on run: the rest's plan and the
   * actions dispatched before its planner instance stopped ({@code before}: added, changed,
   * destroyed) together, followed by the latter's share when both contributed.
   */
  public static String carriedResources(
      int[] before, int restAdded, int restChanged, int restDestroyed) {
    String total =
        "Resources: %d added, %d changed, %d destroyed."
            .formatted(restAdded + before[0], restChanged + before[1], restDestroyed + before[2]);
    if (before[0] + before[1] + before[2] == 0 || restAdded + restChanged + restDestroyed == 0) {
      return total; // all from one side: no share to tell
    }
    return total
        + " Of them, %d added, %d changed, %d destroyed by the actions dispatched before its"
            .formatted(before[0], before[1], before[2])
        + " planner instance stopped.";
  }

  /**
   * The carried-on run's {@code applying} transition: what had finished and what is still awaited.
   */
  public static String carriedApplying(
      int dispatched, List<String> finishedWithOutcomes, List<String> running) {
    return "Carried on: of the "
        + dispatched
        + " action(s) this run had dispatched before its planner instance stopped, "
        + finishedWithOutcomes.size()
        + " had finished"
        + (finishedWithOutcomes.isEmpty()
            ? ""
            : " (" + String.join(", ", finishedWithOutcomes) + ")")
        + " and "
        + running.size()
        + " were still running"
        + (running.isEmpty() ? "" : " (" + String.join(", ", running) + ")")
        + ". Nothing is run twice: running actions are awaited (an executor that stopped"
        + " reporting has its action reported interrupted), then the rest of the plan is made"
        + " against the current state and applied.";
  }

  /** {@link #carriedApplying(int, List, List)} of {@code carried}. */
  public static String carriedApplying(CarriedOver carried) {
    return carriedApplying(
        carried.actions().size(), carried.finishedWithOutcomes(), carried.unfinishedAddresses());
  }

  public static String applyFailed(List<String> failed, Map<String, String> cutShort) {
    return "Apply failed: " + String.join(", ", failed) + cutShortSuffix(cutShort);
  }

  /** A carried-on run ends because a dispatched action did not succeed. */
  public static String carriedFailed(
      List<String> notSucceeded, List<String> finishedWithOutcomes, Map<String, String> cutShort) {
    return "Apply failed: "
        + String.join(", ", notSucceeded)
        + " (dispatched before its planner instance stopped: "
        + String.join(", ", finishedWithOutcomes)
        + "). Nothing more was dispatched and nothing was run twice. Check the workspace's state"
        + " (stagecraft state list) and start a new run."
        + cutShortSuffix(cutShort);
  }

  /** {@link #carriedFailed(List, List, Map)} of {@code carried}. */
  public static String carriedFailed(CarriedOver carried, Map<String, String> cutShort) {
    return carriedFailed(carried.notSucceeded(), carried.finishedWithOutcomes(), cutShort);
  }

  /** A carried-on run whose plan of the rest would dispatch an address again. */
  public static String wouldRepeat(List<String> addresses) {
    return "Carried on after its planner instance stopped, planning the rest of this run against"
        + " the current state would run "
        + String.join(", ", addresses)
        + " again, which this run had already dispatched; it was not dispatched a second time."
        + " Check the workspace's state (stagecraft state list) and start a new run.";
  }

  /**
   * A carried-on run of a plan approved as a whole whose rest ({@code summary}) cannot be shown to
   * be part of it ({@code why}).
   */
  public static String restNotApproved(String summary, String why) {
    return "Carried on after its planner instance stopped, this run's dispatched actions all"
        + " finished, but the rest of its plan ("
        + summary
        + ") is not applied: the run applied a plan approved as a whole (an approval, a saved plan"
        + " or the serial the CLI showed), and the plan made again is not the rest of it ("
        + why
        + "). Run plan/apply again to review and apply the rest.";
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
    return interrupted(
        lease.takenBeforeRestart(),
        lease.executorId(),
        lease.step(),
        lease.stepType(),
        lease.stepTarget(),
        lease.action(),
        actionLease);
  }

  /**
   * What happened to a silent action, for the user: which step on which host, which executor went
   * quiet, that the step was not run again, and what happens to the instance.
   *
   * @param takenBeforeRestart taken before its planner instance stopped and not heard from since
   * @param step the step its executor last reported (1-based), or null when none was reported
   * @param stepTarget that step's host, or null for the executor host
   */
  public static String interrupted(
      boolean takenBeforeRestart,
      String executorId,
      Integer step,
      String stepType,
      String stepTarget,
      String action,
      Duration actionLease) {
    if (takenBeforeRestart) {
      return "the action was taken by an executor before its planner instance stopped, and nothing"
          + " was heard from that executor in the "
          + actionLease.toSeconds()
          + " s since the planner carried the run on: it stopped (or it declined the dispatch as"
          + " too old). The action may have partly run; it was not run again. "
          + consequence(action);
    }
    // step records are sent without waiting (ADR 0007): a step that had just started may not
    // have been reported before its executor died
    String what =
        step != null
            ? "step "
                + step
                + " ("
                + stepType
                + ") on "
                + (stepTarget == null ? "the executor host" : stepTarget)
                + " was interrupted"
            : "the action was interrupted with no step reported running (between steps, or as one"
                + " started)";
    return what
        + ": executor "
        + executorId
        + " stopped reporting (no heartbeat for "
        + actionLease.toSeconds()
        + " s). "
        + (step != null
            ? "The step may have partly run; it was not run again. "
            : "A step that had just started may have partly run; it was not run again. ")
        + consequence(action);
  }

  public static String unheardSinceRestart(ActionLease lease, Duration dispatchLease) {
    return unheardSinceRestart(lease.action(), dispatchLease);
  }

  /** A carried action of kind {@code action} no executor reported on within the dispatch lease. */
  public static String unheardSinceRestart(String action, Duration dispatchLease) {
    return "the action was dispatched before its planner instance stopped and no executor"
        + " reported on it since; its dispatch is older than the dispatch lease ("
        + dispatchLease.toSeconds()
        + " s), so no executor can start it any more. It may have partly run before its planner"
        + " instance stopped; it was not run again. "
        + consequence(action);
  }

  /** What a cut action means for its instance (see the state service's decider). */
  public static String consequence(String action) {
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
