package dev.stagecraft.planner.service.run.admission;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Fair sharing of run slots between tenants (issue 6, deliverable 6): a tenant may have at most its
 * cap of <em>active</em> runs (admitted and not yet ended — waiting for the workspace lock,
 * planning or applying); more wait here, in the order they came (FIFO within a tenant). When an
 * overall limit is set too, a freed slot goes to the waiting tenants in turn (round-robin by
 * tenant), so one tenant's burst cannot starve the others.
 *
 * <p>Plain decision logic: {@link #admit} and {@link #release} return what happened; the caller
 * wakes the runs that were admitted. Concurrency: every method is {@code synchronized}; the
 * instance is shared by all run threads of one planner instance. The counts are per planner
 * instance (runs live in that instance's memory).
 */
public final class TenantAdmission {
  private final int defaultCap;
  private final Map<String, Integer> capOverrides;
  private final int overallLimit;
  private final Map<String, Set<String>> active = new HashMap<>();
  private final LinkedHashMap<String, ArrayDeque<String>> waiting = new LinkedHashMap<>();
  private String lastServedTenant;

  /**
   * @param defaultCap active runs per tenant (at least 1)
   * @param capOverrides per-tenant caps replacing the default (each at least 1)
   * @param overallLimit active runs of all tenants together; 0 for no limit
   */
  public TenantAdmission(int defaultCap, Map<String, Integer> capOverrides, int overallLimit) {
    if (defaultCap < 1) {
      throw new IllegalArgumentException(
          "the per-tenant cap of active runs must be at least 1, got " + defaultCap);
    }
    capOverrides.forEach(
        (tenant, cap) -> {
          if (cap < 1) {
            throw new IllegalArgumentException(
                "the cap of active runs of tenant '" + tenant + "' must be at least 1, got " + cap);
          }
        });
    if (overallLimit < 0) {
      throw new IllegalArgumentException(
          "the overall limit of active runs must be 0 (none) or positive, got " + overallLimit);
    }
    this.defaultCap = defaultCap;
    this.capOverrides = Map.copyOf(capOverrides);
    this.overallLimit = overallLimit;
  }

  /** No caps at all (for tests of other things). */
  public static TenantAdmission unlimited() {
    return new TenantAdmission(Integer.MAX_VALUE, Map.of(), 0);
  }

  /** The cap of active runs of {@code tenant}. */
  public int capOf(String tenant) {
    return capOverrides.getOrDefault(tenant, defaultCap);
  }

  /**
   * Admits the run at once when its tenant is under its cap, nobody of the tenant waits before it
   * and the overall limit allows; else queues it (idempotent for a run already known).
   *
   * @return empty when admitted, else why it waits (for its {@code queued} status)
   */
  public synchronized Optional<String> admit(String tenant, String runId) {
    Set<String> mine = active.computeIfAbsent(tenant, t -> new HashSet<>());
    if (mine.contains(runId)) {
      return Optional.empty();
    }
    ArrayDeque<String> queue = waiting.get(tenant);
    if ((queue == null || queue.isEmpty()) && mine.size() < capOf(tenant) && overallRoom()) {
      mine.add(runId);
      lastServedTenant = tenant;
      return Optional.empty();
    }
    if (queue == null) {
      queue = new ArrayDeque<>();
      waiting.put(tenant, queue);
    }
    if (!queue.contains(runId)) {
      queue.addLast(runId);
    }
    return Optional.of(waitReason(tenant));
  }

  /** Why a run of {@code tenant} waits now. */
  public synchronized String waitReason(String tenant) {
    int count = active.getOrDefault(tenant, Set.of()).size();
    if (count >= capOf(tenant)) {
      return "waiting: tenant has " + count + " active runs (cap " + capOf(tenant) + ")";
    }
    if (!overallRoom()) {
      return "waiting: " + totalActive() + " runs are active (overall limit " + overallLimit + ")";
    }
    return "waiting: earlier runs of the tenant are admitted first";
  }

  /** Whether the run currently holds a slot. */
  public synchronized boolean isActive(String tenant, String runId) {
    return active.getOrDefault(tenant, Set.of()).contains(runId);
  }

  /**
   * The run ended (or left the queue): frees its slot or its place, then admits waiting runs —
   * round-robin by tenant, starting after the tenant served last, FIFO within each. Idempotent.
   *
   * @return the ids of the runs admitted now, in admission order
   */
  public synchronized List<String> release(String tenant, String runId) {
    Set<String> mine = active.get(tenant);
    if (mine != null) {
      mine.remove(runId);
    }
    ArrayDeque<String> queue = waiting.get(tenant);
    if (queue != null) {
      queue.remove(runId);
    }
    List<String> admitted = new ArrayList<>();
    boolean progress = true;
    while (progress && overallRoom()) {
      progress = false;
      for (String candidate : tenantsInTurn()) {
        ArrayDeque<String> q = waiting.get(candidate);
        Set<String> running = active.computeIfAbsent(candidate, t -> new HashSet<>());
        if (q.isEmpty() || running.size() >= capOf(candidate)) {
          continue;
        }
        String next = q.pollFirst();
        running.add(next);
        admitted.add(next);
        lastServedTenant = candidate;
        progress = true;
        break; // the next slot goes to the tenant after this one
      }
    }
    // empty queues stay: the turn order (who comes after the tenant served last) must not shift
    return admitted;
  }

  /** Waiting tenants, starting with the one after the tenant served last. */
  private List<String> tenantsInTurn() {
    List<String> tenants = new ArrayList<>(waiting.keySet());
    int last = tenants.indexOf(lastServedTenant);
    List<String> order = new ArrayList<>(tenants.subList(last + 1, tenants.size()));
    order.addAll(tenants.subList(0, last + 1));
    return order;
  }

  private boolean overallRoom() {
    return overallLimit == 0 || totalActive() < overallLimit;
  }

  private int totalActive() {
    return active.values().stream().mapToInt(Set::size).sum();
  }
}
