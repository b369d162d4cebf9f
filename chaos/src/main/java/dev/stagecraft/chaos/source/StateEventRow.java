package dev.stagecraft.chaos.source;

import java.time.Instant;

/**
 * One row of a workspace's state history ({@code state.state_events}) with what the checker needs
 * from it.
 *
 * @param type the event type ({@code lineage_assigned}, {@code instance_created}, {@code
 *     fencing_advanced}, ...)
 * @param runId the run that wrote it, if any
 * @param lineage the payload's {@code lineage} ({@code lineage_assigned}, {@code state_replaced}),
 *     else null
 * @param fencingToken the payload's {@code fencingToken} ({@code fencing_advanced}), else null
 * @param serial the serial of the version the event made ({@code state.state_versions}), null if it
 *     made none
 */
public record StateEventRow(
    String tenant,
    String workspace,
    long sequence,
    String type,
    String runId,
    String lineage,
    Long fencingToken,
    Long serial,
    Instant createdAt) {}
