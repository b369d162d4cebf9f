package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.StateEntry;
import dev.stagecraft.chaos.history.WorkspaceKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * No state update is lost, applied twice or written by a fenced-out writer. For each workspace, in
 * the order of its history's sequence numbers:
 *
 * <ul>
 *   <li>the sequence numbers are gapless from the first one seen (each is the previous + 1): a gap
 *       is a lost entry, a repeat a double one — {@link ViolationKind#STATE_SEQUENCE_GAP};
 *   <li>each write's serial is above the previous write's — {@link
 *       ViolationKind#STATE_SERIAL_NOT_INCREASING};
 *   <li>every write keeps the first write's lineage — {@link ViolationKind#STATE_LINEAGE_CHANGED};
 *   <li>no write carries a fencing token older than the newest token of any earlier entry (write or
 *       fencing advance; entries whose token is unknown are left out of this one) — {@link
 *       ViolationKind#STATE_WRITE_STALE_TOKEN}.
 * </ul>
 */
public final class StateHistories implements Invariant {

  @Override
  public String name() {
    return "state histories";
  }

  @Override
  public List<Violation> check(History history) {
    Map<WorkspaceKey, List<StateEntry>> byWorkspace =
        history.stateEntries().stream()
            .sorted(Comparator.comparingLong(StateEntry::sequence))
            .collect(
                Collectors.groupingBy(StateEntry::workspaceKey, TreeMap::new, Collectors.toList()));
    List<Violation> found = new ArrayList<>();
    byWorkspace.forEach((workspace, entries) -> checkWorkspace(workspace, entries, found));
    return found;
  }

  private static void checkWorkspace(
      WorkspaceKey workspace, List<StateEntry> entries, List<Violation> found) {
    String ws = workspace.toString();
    StateEntry previous = null;
    StateEntry previousWrite = null;
    StateEntry firstWrite = null;
    StateEntry newestToken = null;
    for (StateEntry entry : entries) {
      if (previous != null && entry.sequence() != previous.sequence() + 1) {
        found.add(sequenceGap(ws, previous, entry));
      }
      if (entry.kind() == StateEntry.Kind.WRITE) {
        if (previousWrite != null && entry.serial() <= previousWrite.serial()) {
          found.add(serialNotIncreasing(ws, previousWrite, entry));
        }
        if (firstWrite != null
            && firstWrite.lineage() != null
            && entry.lineage() != null
            && !firstWrite.lineage().equals(entry.lineage())) {
          found.add(lineageChanged(ws, firstWrite, entry));
        }
        if (newestToken != null
            && entry.fencingToken() != null
            && entry.fencingToken() < newestToken.fencingToken()) {
          found.add(staleToken(ws, newestToken, entry));
        }
        if (firstWrite == null) {
          firstWrite = entry;
        }
        previousWrite = entry;
      }
      if (entry.fencingToken() != null
          && (newestToken == null || entry.fencingToken() > newestToken.fencingToken())) {
        newestToken = entry;
      }
      previous = entry;
    }
  }

  /** {@code entry} does not follow {@code previous} by one: a repeat or missing sequences. */
  private static Violation sequenceGap(String ws, StateEntry previous, StateEntry entry) {
    String what =
        entry.sequence() == previous.sequence()
            ? "sequence " + entry.sequence() + " appears twice"
            : "sequences "
                + (previous.sequence() + 1)
                + ".."
                + (entry.sequence() - 1)
                + " are missing (between "
                + previous.sequence()
                + " and "
                + entry.sequence()
                + ")";
    return new Violation(
        ViolationKind.STATE_SEQUENCE_GAP,
        "state history of " + ws + ": " + what,
        List.of(ws, "sequence " + entry.sequence()),
        List.of(previous, entry));
  }

  private static Violation serialNotIncreasing(
      String ws, StateEntry previousWrite, StateEntry entry) {
    return new Violation(
        ViolationKind.STATE_SERIAL_NOT_INCREASING,
        "state history of "
            + ws
            + ": the write at sequence "
            + entry.sequence()
            + " has serial "
            + entry.serial()
            + ", not above serial "
            + previousWrite.serial()
            + " of the write at sequence "
            + previousWrite.sequence(),
        List.of(ws, "sequence " + entry.sequence()),
        List.of(previousWrite, entry));
  }

  private static Violation lineageChanged(String ws, StateEntry firstWrite, StateEntry entry) {
    return new Violation(
        ViolationKind.STATE_LINEAGE_CHANGED,
        "state history of "
            + ws
            + ": the write at sequence "
            + entry.sequence()
            + " has lineage "
            + entry.lineage()
            + ", not "
            + firstWrite.lineage()
            + " as from sequence "
            + firstWrite.sequence(),
        List.of(ws, "sequence " + entry.sequence()),
        List.of(firstWrite, entry));
  }

  private static Violation staleToken(String ws, StateEntry newestToken, StateEntry entry) {
    return new Violation(
        ViolationKind.STATE_WRITE_STALE_TOKEN,
        "state history of "
            + ws
            + ": the write at sequence "
            + entry.sequence()
            + (entry.runId() == null ? "" : " by run " + entry.runId())
            + " used fencing token "
            + entry.fencingToken()
            + " after token "
            + newestToken.fencingToken()
            + " was seen at sequence "
            + newestToken.sequence(),
        List.of(ws, "sequence " + entry.sequence()),
        List.of(newestToken, entry));
  }
}
