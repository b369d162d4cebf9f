package dev.stagecraft.schemas.run;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A run moved to a new status.
 *
 * @param status one of {@code pending}, {@code queued}, {@code planning}, {@code planned}, {@code
 *     planned_and_finished}, {@code applying}, {@code applied}, {@code errored}
 * @param message human-readable detail (redacted), e.g. the failure or the queue position
 * @param planDigest on {@code planned} when the run waits for approval: the digest an approval must
 *     name ({@code POST /api/v1/runs/{id}/approve}); absent otherwise
 * @param approvalExpiresAt with {@code planDigest}: when the run is discarded unless approved
 *     (ISO-8601); absent otherwise
 */
public record RunTransitioned(
    String runId,
    String status,
    String message,
    @JsonInclude(JsonInclude.Include.NON_NULL) String planDigest,
    @JsonInclude(JsonInclude.Include.NON_NULL) String approvalExpiresAt)
    implements RunLifecycleEvent {

  /** A transition that does not wait for approval. */
  public RunTransitioned(String runId, String status, String message) {
    this(runId, status, message, null, null);
  }
}
