package dev.stagecraft.planner.service.run.approval;

import dev.stagecraft.planner.service.run.lifecycle.Decision;
import dev.stagecraft.planner.service.run.lifecycle.Refusal;

/**
 * What became of an approval or a discard (docs/runs.md "Approval"), as every door answers it
 * (REST, chat-ops decisions), and why a refused one was refused — the one wording for all of them.
 */
public enum ApprovalOutcome {
  /** Approved: the run applies exactly the plan with that digest (or, for discard: discarded). */
  DONE,
  /** This instance has no such run of the tenant. */
  NOT_FOUND,
  /** The run is not waiting for approval (not planned yet, auto-applied, or ended). */
  NOT_AWAITING,
  /** The digest named is not the digest of the run's plan: approve what was shown, or re-plan. */
  WRONG_DIGEST,
  /** The approval came after the approval timeout; the run was discarded. */
  EXPIRED;

  /**
   * The answer to an approval or discard the run lifecycle decided ({@code RunDecider} on an {@code
   * Approve} or {@code Discard}): accepted is {@link #DONE}; a run that ended ({@link
   * Refusal#ALREADY_ENDED}) or does not wait gets {@link #NOT_AWAITING}, as the API always answered
   * it; a wrong digest and an expired plan keep their own answers.
   */
  public static ApprovalOutcome of(Decision decision) {
    if (decision.refusal().isEmpty()) {
      return DONE;
    }
    return switch (decision.refusal().get()) {
      case WRONG_DIGEST -> WRONG_DIGEST;
      case EXPIRED -> EXPIRED;
      case NOT_AWAITING, ALREADY_ENDED, NOT_EXPECTED, STALE, NOT_RESUMABLE -> NOT_AWAITING;
    };
  }

  /**
   * Why an approval or discard of {@code runId} was refused, and what to do instead.
   *
   * @param digest the digest the refused approval named (null for a discard)
   * @throws IllegalArgumentException for {@link #DONE} and {@link #NOT_FOUND}, which are no refusal
   *     with a reason
   */
  public String refusal(String runId, String digest) {
    return switch (this) {
      case NOT_AWAITING ->
          "Run "
              + runId
              + " is not waiting for approval (it has not planned yet, applies automatically, was"
              + " approved or discarded already, or has ended): see its status with GET"
              + " /api/v1/runs/"
              + runId
              + ".";
      case WRONG_DIGEST ->
          "Plan digest "
              + digest
              + " is not the plan of run "
              + runId
              + " (its planDigest says which is). Review the run's plan and approve that digest, or"
              + " start a new run. Nothing was applied.";
      case EXPIRED ->
          "The plan of run "
              + runId
              + " waited longer than the approval timeout (STAGECRAFT_PLANNER_APPROVAL_TIMEOUT);"
              + " the run was discarded and nothing was applied. Start a new run.";
      case DONE, NOT_FOUND ->
          throw new IllegalArgumentException(this + " is not a refusal with a reason");
    };
  }
}
