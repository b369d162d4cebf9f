package dev.stagecraft.planner.service.run.lifecycle;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run carried on after a restart (docs/adr/0035) dispatched before it, and the outcomes
 * recorded for those actions since.
 *
 * @param actions by action id, in dispatch order
 * @param outcomes the recorded outcome ({@code succeeded}, {@code failed}, {@code interrupted}, …)
 *     by action id
 * @param approvalBound the run applied a plan approved as a whole (docs/adr/0051)
 * @param approvedPlanDigest that plan's recorded digest, which the run keeps showing; else null
 * @param credential the state credential its dispatches carried, or null: the run takes it back
 *     once it holds the lock again (docs/adr/0013)
 */
public record CarriedOver(
    Map<String, CarriedAction> actions,
    Map<String, String> outcomes,
    boolean approvalBound,
    String approvedPlanDigest,
    RunCredential credential) {
  public CarriedOver {
    actions = Collections.unmodifiableMap(new LinkedHashMap<>(actions));
    outcomes = Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
  }

  static CarriedOver of(
      List<CarriedAction> dispatched, boolean bound, String digest, RunCredential credential) {
    Map<String, CarriedAction> byId = new LinkedHashMap<>();
    dispatched.forEach(a -> byId.putIfAbsent(a.actionId(), a));
    return new CarriedOver(byId, Map.of(), bound, digest, credential);
  }

  CarriedOver recorded(String actionId, String outcome) {
    if (!actions.containsKey(actionId) || outcomes.containsKey(actionId)) {
      return this;
    }
    Map<String, String> next = new LinkedHashMap<>(outcomes);
    next.put(actionId, outcome);
    return new CarriedOver(actions, next, approvalBound, approvedPlanDigest, credential);
  }

  public boolean settled() {
    return outcomes.keySet().containsAll(actions.keySet());
  }

  public List<CarriedAction> unfinished() {
    return actions.values().stream().filter(a -> !outcomes.containsKey(a.actionId())).toList();
  }

  /** The addresses whose recorded outcome is not {@code succeeded}. */
  public List<String> notSucceeded() {
    return actions.values().stream()
        .filter(a -> outcomes.containsKey(a.actionId()))
        .filter(a -> !"succeeded".equals(outcomes.get(a.actionId())))
        .map(CarriedAction::address)
        .toList();
  }

  public long succeededCount() {
    return outcomes.values().stream().filter("succeeded"::equals).count();
  }

  /** The actions with an outcome, each as {@code address: outcome}, in dispatch order. */
  public List<String> finishedWithOutcomes() {
    return actions.values().stream()
        .filter(a -> outcomes.containsKey(a.actionId()))
        .map(a -> a.address() + ": " + outcomes.get(a.actionId()))
        .toList();
  }

  /** The addresses of the actions still without an outcome, in dispatch order. */
  public List<String> unfinishedAddresses() {
    return unfinished().stream().map(CarriedAction::address).toList();
  }

  /**
   * The resources the actions that succeeded added, changed and destroyed, counted as a plan counts
   * them: a {@code replace} adds one and destroys one (only adds when it forgets the old object); a
   * {@code forget} counts in none.
   *
   * @return {@code {added, changed, destroyed}}
   */
  public int[] succeededResourceCounts() {
    int[] counts = new int[3];
    for (CarriedAction a : actions.values()) {
      if (!"succeeded".equals(outcomes.get(a.actionId()))) {
        continue;
      }
      switch (a.action()) {
        case "create" -> counts[0]++;
        case "update" -> counts[1]++;
        case "delete" -> counts[2]++;
        case "replace" -> {
          counts[0]++;
          if (!a.skipDestroy()) {
            counts[2]++;
          }
        }
        default -> {} // forget: the object stays, only the state forgets it
      }
    }
    return counts;
  }

  /** Which of {@code addresses} were dispatched before the restart (never dispatched twice). */
  public List<String> alreadyDispatched(List<String> addresses) {
    return addresses.stream()
        .filter(a -> actions.values().stream().anyMatch(c -> c.address().equals(a)))
        .toList();
  }
}
