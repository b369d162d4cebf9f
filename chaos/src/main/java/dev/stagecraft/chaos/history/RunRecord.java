package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * One run as its records show it at the end of the soak.
 *
 * @param runId the run's id
 * @param tenant the tenant that owns it
 * @param workspace the workspace it ran in (unique within the tenant)
 * @param queuedAt when it was accepted ({@code pending})
 * @param startedAt when it left the workspace's queue (got the lock and began planning); null if it
 *     never did
 * @param endedAt when it reached its current status, if that status is an end state; null while not
 *     ended
 * @param status its last status ({@code applied}, {@code errored}, {@code applying}, ...)
 * @param queueOrder its place in the workspace's queue: a lower number was queued earlier
 * @param coalesced true if a newer run with the same coalescing key replaced it while it waited
 *     (such runs are exempt from FIFO: they never run)
 */
public record RunRecord(
    String runId,
    String tenant,
    String workspace,
    Instant queuedAt,
    Instant startedAt,
    Instant endedAt,
    String status,
    long queueOrder,
    boolean coalesced) {

  public RunRecord {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(workspace, "workspace");
    Objects.requireNonNull(queuedAt, "queuedAt");
    Objects.requireNonNull(status, "status");
  }
}
