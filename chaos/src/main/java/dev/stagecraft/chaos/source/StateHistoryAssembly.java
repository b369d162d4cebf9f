package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.StateEntry;
import dev.stagecraft.chaos.history.WorkspaceKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds {@link StateEntry}s from the state service's history rows. A {@code fencing_advanced} row
 * is a fencing advance; a row that made a version (it has a serial) is a write; any other row is a
 * note. The state service does not store the token a write presented, so a run's write is given the
 * token its run's own {@code fencing_advanced} row carries (a run presents the token it opened
 * with), and a write by no run, or by a run whose advance is not in the history (its token was
 * already the newest), is left unknown. The lineage of a write is the newest one a row named.
 */
public final class StateHistoryAssembly {
  private StateHistoryAssembly() {}

  public static List<StateEntry> entries(List<StateEventRow> rows) {
    List<StateEventRow> sorted = new ArrayList<>(rows);
    sorted.sort(
        Comparator.comparing(StateEventRow::tenant)
            .thenComparing(StateEventRow::workspace)
            .thenComparingLong(StateEventRow::sequence));
    Map<WorkspaceKey, String> lineage = new HashMap<>();
    Map<WorkspaceKey, Map<String, Long>> runTokens = new HashMap<>();
    List<StateEntry> entries = new ArrayList<>();
    for (StateEventRow row : sorted) {
      WorkspaceKey ws = new WorkspaceKey(row.tenant(), row.workspace());
      if (row.lineage() != null) {
        lineage.put(ws, row.lineage());
      }
      Map<String, Long> tokens = runTokens.computeIfAbsent(ws, k -> new HashMap<>());
      StateEntry.Kind kind;
      Long token = null;
      if ("fencing_advanced".equals(row.type())) {
        kind = StateEntry.Kind.FENCING_ADVANCED;
        token = row.fencingToken();
        if (row.runId() != null && token != null) {
          tokens.merge(row.runId(), token, Math::max);
        }
      } else if (row.serial() != null) {
        kind = StateEntry.Kind.WRITE;
        token = row.runId() == null ? null : tokens.get(row.runId());
      } else {
        kind = StateEntry.Kind.NOTE;
      }
      entries.add(
          new StateEntry(
              row.tenant(),
              row.workspace(),
              row.sequence(),
              kind,
              row.serial() == null ? 0 : row.serial(),
              kind == StateEntry.Kind.WRITE ? lineage.get(ws) : null,
              token,
              row.runId(),
              row.createdAt()));
    }
    return entries;
  }
}
