package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * What Stagecraft reported about a step when its action ended (run events, state).
 *
 * @param runId the run
 * @param actionId the action
 * @param stepId the step ({@code <actionId>#<index>})
 * @param action the action's kind: {@code create}, {@code replace}, {@code update}, {@code delete},
 *     {@code forget}
 * @param outcome {@code succeeded}, {@code failed}, {@code interrupted} or {@code canceled}
 * @param instanceTainted true if the action's instance was recorded tainted (only a creating
 *     action, create or replace, taints: a cut delete leaves the instance in state as it was)
 * @param at when it was reported
 */
public record StepReport(
    String runId,
    String actionId,
    String stepId,
    String action,
    String outcome,
    boolean instanceTainted,
    Instant at) {
  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";
  public static final String INTERRUPTED = "interrupted";
  public static final String CANCELED = "canceled";

  public StepReport {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(stepId, "stepId");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** True for an action that writes a new object, which an interrupted step leaves tainted. */
  public boolean creates() {
    return "create".equals(action) || "replace".equals(action);
  }

  public StepKey step() {
    return new StepKey(runId, stepId);
  }
}
