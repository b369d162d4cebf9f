package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.LockTenure;
import dev.stagecraft.chaos.history.WorkspaceKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the lock service's audit trail: who held each lock when (an {@code acquired} row opens a
 * tenure, the {@code released}, {@code expired} or {@code force_released} row with the same lock id
 * closes it), in which order holders arrived at each workspace's lock (the id of a holder's first
 * {@code acquired} or {@code enqueued} row; a holder that replaced a coalesced one takes the older
 * one's place, as the lock service's queue does) and which holders were replaced by coalescing.
 */
public final class LockAuditTrail {

  /** A holder at one workspace's lock. */
  public record Holder(WorkspaceKey workspace, String holder) {}

  private final List<LockTenure> tenures;
  private final Map<Holder, Long> arrival;
  private final Map<Holder, Instant> firstGrant;
  private final Set<Holder> superseded;
  private final List<String> problems;

  private LockAuditTrail(
      List<LockTenure> tenures,
      Map<Holder, Long> arrival,
      Map<Holder, Instant> firstGrant,
      Set<Holder> superseded,
      List<String> problems) {
    this.tenures = List.copyOf(tenures);
    this.arrival = Map.copyOf(arrival);
    this.firstGrant = Map.copyOf(firstGrant);
    this.superseded = Set.copyOf(superseded);
    this.problems = List.copyOf(problems);
  }

  public static LockAuditTrail of(List<LockAuditRow> rows) {
    List<LockAuditRow> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparingLong(LockAuditRow::id));
    Map<String, LockAuditRow> open = new LinkedHashMap<>();
    List<LockTenure> tenures = new ArrayList<>();
    Map<Holder, Long> arrival = new HashMap<>();
    Map<Holder, Instant> firstGrant = new HashMap<>();
    Set<Holder> superseded = new HashSet<>();
    List<String> problems = new ArrayList<>();
    for (LockAuditRow row : sorted) {
      WorkspaceKey ws = new WorkspaceKey(row.tenant(), row.workspace());
      Holder holder = new Holder(ws, row.holder());
      switch (row.type()) {
        case "acquired" -> {
          arrival.putIfAbsent(holder, row.id());
          firstGrant.putIfAbsent(holder, row.at());
          open.put(row.lockId(), row);
        }
        case "enqueued" -> arrival.putIfAbsent(holder, row.id());
        case "superseded" -> {
          superseded.add(holder);
          if (row.actor() != null) {
            Holder newer = new Holder(ws, row.actor());
            long place = arrival.getOrDefault(holder, row.id());
            arrival.merge(newer, place, Math::min);
          }
        }
        case "released", "expired", "force_released" -> {
          LockAuditRow acquired = open.remove(row.lockId());
          if (acquired == null) {
            problems.add(
                "lock audit row "
                    + row.id()
                    + ": "
                    + row.type()
                    + " of lock "
                    + row.lockId()
                    + " in "
                    + ws
                    + " without its acquired row (the trail starts later?)");
          } else {
            tenures.add(tenure(acquired, row.at(), row.type()));
          }
        }
        // it stopped asking for longer than the queue timeout: if it asks again, it queues anew;
        // a holder granted the lock before (a run carried on after a restart that asks again)
        // keeps the place it started from
        case "abandoned" -> {
          if (!firstGrant.containsKey(holder)) {
            arrival.remove(holder);
          }
        }
        default -> {
          // other bookkeeping: no tenure, no place
        }
      }
    }
    open.values().forEach(a -> tenures.add(tenure(a, null, null)));
    return new LockAuditTrail(tenures, arrival, firstGrant, superseded, problems);
  }

  private static LockTenure tenure(LockAuditRow acquired, Instant endedAt, String endedBy) {
    return new LockTenure(
        acquired.tenant(),
        acquired.workspace(),
        acquired.holder(),
        acquired.fencingToken() == null ? 0 : acquired.fencingToken(),
        acquired.at(),
        endedAt,
        endedBy);
  }

  public List<LockTenure> tenures() {
    return tenures;
  }

  /** The holder's place in the workspace's queue (lower = earlier), if it ever asked. */
  public Optional<Long> arrival(WorkspaceKey workspace, String holder) {
    return Optional.ofNullable(arrival.get(new Holder(workspace, holder)));
  }

  /** When the holder was first granted the workspace's lock, if ever. */
  public Optional<Instant> firstGrant(WorkspaceKey workspace, String holder) {
    return Optional.ofNullable(firstGrant.get(new Holder(workspace, holder)));
  }

  /** True if a newer request with the same coalescing key replaced the holder while it waited. */
  public boolean superseded(WorkspaceKey workspace, String holder) {
    return superseded.contains(new Holder(workspace, holder));
  }

  /** Rows that could not be placed, each saying which and why. */
  public List<String> problems() {
    return problems;
  }
}
