package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.LockTenure;
import dev.stagecraft.chaos.history.WorkspaceKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Never two writers: per workspace, no two lock tenures overlap ({@link
 * ViolationKind#TWO_LOCK_HOLDERS}; a tenure is {@code [acquiredAt, endedAt)}, one still held at the
 * end lasts forever, so a grant at the very instant of the previous release is fine), and each
 * grant carries a fencing token above every earlier grant's ({@link
 * ViolationKind#LOCK_TOKEN_NOT_INCREASING}), so a fenced-out holder cannot come back.
 */
public final class OneLockHolder implements Invariant {

  private static final Comparator<LockTenure> GRANT_ORDER =
      Comparator.comparing(LockTenure::acquiredAt)
          .thenComparingLong(LockTenure::fencingToken)
          .thenComparing(LockTenure::holder);

  @Override
  public String name() {
    return "one lock holder";
  }

  @Override
  public List<Violation> check(History history) {
    Map<WorkspaceKey, List<LockTenure>> byWorkspace =
        history.lockTenures().stream()
            .sorted(GRANT_ORDER)
            .collect(
                Collectors.groupingBy(LockTenure::workspaceKey, TreeMap::new, Collectors.toList()));
    List<Violation> found = new ArrayList<>();
    byWorkspace.forEach((workspace, tenures) -> checkWorkspace(workspace, tenures, found));
    return found;
  }

  private static void checkWorkspace(
      WorkspaceKey workspace, List<LockTenure> tenures, List<Violation> found) {
    String ws = workspace.toString();
    List<LockTenure> earlier = new ArrayList<>();
    LockTenure highest = null;
    for (LockTenure tenure : tenures) {
      // Grants come in time order: one that ended by now cannot overlap this or any later grant.
      earlier.removeIf(o -> o.endedAt() != null && !o.endedAt().isAfter(tenure.acquiredAt()));
      for (LockTenure other : earlier) {
        found.add(
            new Violation(
                ViolationKind.TWO_LOCK_HOLDERS,
                "lock of "
                    + ws
                    + ": "
                    + tenure.holder()
                    + " (token "
                    + tenure.fencingToken()
                    + ") was granted at "
                    + tenure.acquiredAt()
                    + " while "
                    + other.holder()
                    + " (token "
                    + other.fencingToken()
                    + ") held it until "
                    + until(other.endedAt()),
                List.of(ws, other.holder(), tenure.holder()),
                List.of(other, tenure)));
      }
      if (highest != null && tenure.fencingToken() <= highest.fencingToken()) {
        found.add(
            new Violation(
                ViolationKind.LOCK_TOKEN_NOT_INCREASING,
                "lock of "
                    + ws
                    + ": "
                    + tenure.holder()
                    + " was granted token "
                    + tenure.fencingToken()
                    + " at "
                    + tenure.acquiredAt()
                    + ", not above token "
                    + highest.fencingToken()
                    + " granted to "
                    + highest.holder()
                    + " at "
                    + highest.acquiredAt(),
                List.of(ws, tenure.holder()),
                List.of(highest, tenure)));
      }
      if (highest == null || tenure.fencingToken() > highest.fencingToken()) {
        highest = tenure;
      }
      earlier.add(tenure);
    }
  }

  private static String until(Instant end) {
    return end == null ? "the end of the history" : end.toString();
  }
}
