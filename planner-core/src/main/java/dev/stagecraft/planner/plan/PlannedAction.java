package dev.stagecraft.planner.plan;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the plan does to one resource instance.
 *
 * @param before attributes in prior state ({@code null} when creating)
 * @param after planned attributes ({@code null} when deleting or forgetting); attributes named in
 *     {@code afterUnknown} are not known until apply and absent from {@code after}
 * @param replacePaths attributes whose change forces replacement
 * @param waitFor addresses whose actions must be recorded before this one may start
 * @param dependencies addresses this instance depends on, recorded in state
 */
public record PlannedAction(
    String address,
    String type,
    String name,
    ActionType action,
    ActionReason reason,
    Map<String, Object> before,
    Map<String, Object> after,
    Set<String> afterUnknown,
    Set<String> replacePaths,
    List<String> waitFor,
    List<String> dependencies) {

  public PlannedAction {
    afterUnknown = afterUnknown == null ? Set.of() : Set.copyOf(afterUnknown);
    replacePaths = replacePaths == null ? Set.of() : Set.copyOf(replacePaths);
    waitFor = waitFor == null ? List.of() : List.copyOf(waitFor);
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
  }

  public boolean isChange() {
    return action != ActionType.NO_OP;
  }
}
