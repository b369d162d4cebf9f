package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * One execution of a provisioner step, as a line of the journal file on the host that ran it: each
 * step appends its unique token when it runs, so the lines with one step's token count its
 * executions.
 *
 * @param host the host whose journal holds the line (an executor, or an SSH target)
 * @param token the step's unique token
 * @param runId the run that dispatched it
 * @param actionId the action it belongs to
 * @param stepId the step ({@code <actionId>#<index>})
 * @param retryable true if the step is marked safe to run again
 * @param at when the line was written
 */
public record StepExecution(
    String host,
    String token,
    String runId,
    String actionId,
    String stepId,
    boolean retryable,
    Instant at) {

  public StepExecution {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(stepId, "stepId");
    Objects.requireNonNull(at, "at");
  }

  /** The step this execution belongs to: a step is identified by its run and its step id. */
  public StepKey step() {
    return new StepKey(runId, stepId);
  }
}
