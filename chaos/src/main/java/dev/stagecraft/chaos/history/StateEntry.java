package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a workspace's state history, in the order the state service stored it.
 *
 * @param tenant the tenant
 * @param workspace the workspace
 * @param sequence the entry's position in the workspace's history (1, 2, 3, ...)
 * @param kind a {@link Kind#WRITE} changes the state; a {@link Kind#FENCING_ADVANCED} only makes
 *     {@code fencingToken} the newest (a run opened), so any later write with an older token is
 *     stale; a {@link Kind#NOTE} records something without changing the state (the lineage was
 *     assigned, a lock was forced open) and only takes its place in the sequence
 * @param serial the state's serial after a write (ignored for a fencing advance)
 * @param lineage the state's lineage after a write (ignored for a fencing advance)
 * @param fencingToken the token the writer presented; null when the source does not say (such a
 *     write is not checked for staleness and does not raise the newest token)
 * @param runId the run that wrote it, if any
 * @param at when it was stored
 */
public record StateEntry(
    String tenant,
    String workspace,
    long sequence,
    Kind kind,
    long serial,
    String lineage,
    Long fencingToken,
    String runId,
    Instant at) {

  /** What an entry did. */
  public enum Kind {
    WRITE,
    FENCING_ADVANCED,
    NOTE
  }

  public StateEntry {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(workspace, "workspace");
    Objects.requireNonNull(kind, "kind");
  }

  public WorkspaceKey workspaceKey() {
    return new WorkspaceKey(tenant, workspace);
  }
}
