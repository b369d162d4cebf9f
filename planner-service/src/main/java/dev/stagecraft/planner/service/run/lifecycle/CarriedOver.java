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
 */
public record CarriedOver(
    Map<String, CarriedAction> actions,
    Map<String, String> outcomes,
    boolean approvalBound,
    String approvedPlanDigest) {
  public CarriedOver {
    actions = Collections.unmodifiableMap(new LinkedHashMap<>(actions));
    outcomes = Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
  }

  static CarriedOver of(List<CarriedAction> dispatched, boolean bound, String digest) {
    Map<String, CarriedAction> byId = new LinkedHashMap<>();
    dispatched.forEach(a -> byId.put(a.actionId(), a));
    return new CarriedOver(byId, Map.of(), bound, digest);
  }

  CarriedOver recorded(String actionId, String outcome) {
    if (!actions.containsKey(actionId) || outcomes.containsKey(actionId)) {
      return this;
    }
    Map<String, String> next = new LinkedHashMap<>(outcomes);
    next.put(actionId, outcome);
    return new CarriedOver(actions, next, approvalBound, approvedPlanDigest);
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

  /** Which of {@code addresses} were dispatched before the restart (never dispatched twice). */
  public List<String> alreadyDispatched(List<String> addresses) {
    return addresses.stream()
        .filter(a -> actions.values().stream().anyMatch(c -> c.address().equals(a)))
        .toList();
  }
}
