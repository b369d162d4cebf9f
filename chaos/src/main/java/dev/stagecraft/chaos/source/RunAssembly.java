package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.RunTransition;
import dev.stagecraft.chaos.history.WorkspaceKey;
import dev.stagecraft.chaos.invariant.RunsEnd;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * Builds {@link RunRecord}s from the planner's run records and the lock audit trail: queued at the
 * run's creation; started when its workspace lock was first granted to it (the run id is the lock
 * holder); ended at its last transition if its status is an end state; its queue place is its
 * arrival at the lock ({@link LockAuditTrail#arrival}; a run that never asked comes last);
 * coalesced if the lock service replaced it with a newer request.
 */
public final class RunAssembly {
  private RunAssembly() {}

  public static List<RunRecord> runs(List<RunRow> rows, LockAuditTrail locks) {
    return rows.stream()
        .sorted(Comparator.comparing(RunRow::id))
        .map(row -> record(row, locks))
        .toList();
  }

  /** Every transition of every run, in the order of the rows and of their sequence. */
  public static List<RunTransition> transitions(List<RunRow> rows) {
    return rows.stream()
        .flatMap(
            row ->
                row.transitions().stream()
                    .sorted(Comparator.comparingLong(RunRow.Transition::sequence))
                    .map(t -> new RunTransition(row.id(), t.status(), t.at())))
        .toList();
  }

  private static RunRecord record(RunRow row, LockAuditTrail locks) {
    WorkspaceKey ws = new WorkspaceKey(row.tenant(), row.workspace());
    Instant ended = null;
    if (RunsEnd.END_STATES.contains(row.status())) {
      ended =
          row.transitions().stream()
              .max(Comparator.comparingLong(RunRow.Transition::sequence))
              .map(RunRow.Transition::at)
              .orElse(row.updatedAt());
    }
    return new RunRecord(
        row.id(),
        row.tenant(),
        row.workspace(),
        row.createdAt(),
        locks.firstGrant(ws, row.id()).orElse(null),
        ended,
        row.status(),
        locks.arrival(ws, row.id()).orElse(Long.MAX_VALUE),
        locks.superseded(ws, row.id()));
  }
}
