package dev.stagecraft.schemas.state;

/**
 * The state service durably recorded the outcome of an action (or refused it).
 *
 * @param outcome {@code succeeded}, {@code failed} (instance tainted or kept) or {@code rejected}
 *     (stale fencing token: nothing was written)
 * @param serial the workspace state's serial after the record
 */
public record StateRecorded(
    String runId,
    String actionId,
    String address,
    String outcome,
    String error,
    long serial,
    String instanceId)
    implements StateEvent {}
