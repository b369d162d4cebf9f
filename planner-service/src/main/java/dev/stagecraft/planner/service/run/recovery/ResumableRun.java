package dev.stagecraft.planner.service.run.recovery;

import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunRequest;
import java.time.Instant;
import java.util.Map;

/**
 * A run a previous life of this planner instance accepted and did not finish, with what is needed
 * to start it again under its own id ({@link RunCoordinator#resume}; docs/adr/0029).
 *
 * @param request the recorded request, supporting files included
 * @param awaitingApproval whether a plan with changes waits for approval
 * @param createdAt when the run was created (kept)
 * @param lastSequence the highest event sequence recorded for the run; the resumed run continues
 *     above it
 * @param planDigest for a run that was {@code planned} awaiting approval: the digest of the plan
 *     shown, which the plan made again must equal (else the run ends {@code errored}); else null
 * @param plannedAt when that plan was made (the approval timeout counts from it); else null
 * @param approvedChanges for a run that was applying a plan approved as a whole: the recorded
 *     {@link dev.stagecraft.planner.plan.Plan#changeDocuments} of that plan (docs/adr/0051); else
 *     null (also for a run recorded before they were)
 */
public record ResumableRun(
    String id,
    RunRequest request,
    boolean awaitingApproval,
    Instant createdAt,
    long lastSequence,
    String planDigest,
    Instant plannedAt,
    Map<String, String> approvedChanges) {

  public ResumableRun {
    approvedChanges = approvedChanges == null ? null : Map.copyOf(approvedChanges);
  }

  /** Without recorded approved changes. */
  public ResumableRun(
      String id,
      RunRequest request,
      boolean awaitingApproval,
      Instant createdAt,
      long lastSequence,
      String planDigest,
      Instant plannedAt) {
    this(id, request, awaitingApproval, createdAt, lastSequence, planDigest, plannedAt, null);
  }
}
