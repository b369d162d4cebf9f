package dev.stagecraft.state.adapter.db;

import dev.stagecraft.state.history.WorkspaceState;

/**
 * The fold of a workspace's events 1..{@code sequence}, its newest snapshot's sequence, and the
 * workspace's newest fencing token at {@code sequence} ({@link EventAppend#UNKNOWN_TOKEN} when not
 * known): read in one snapshot with the head, or answered by the append that made the head. Known,
 * it lets {@code ActionResults.record} append with the bare insert of ADR 0052.
 */
record Folded(long sequence, WorkspaceState state, long snapshotSequence, long newest) {
  Folded(long sequence, WorkspaceState state, long snapshotSequence) {
    this(sequence, state, snapshotSequence, EventAppend.UNKNOWN_TOKEN);
  }

  Folded knowing(long newestToken) {
    return new Folded(sequence, state, snapshotSequence, newestToken);
  }
}
