package dev.stagecraft.planner.plan;

import java.util.List;

/**
 * What the plan does to one root module output ({@code output_changes} in the JSON plan).
 *
 * @param actions {@code ["create"]}, {@code ["update"]}, {@code ["no-op"]} or {@code ["delete"]}
 * @param before the value in prior state (null when absent or sensitive)
 * @param after the planned value (null when unknown, deleted or sensitive)
 * @param afterUnknown the value is not known until apply
 * @param sensitive {@code sensitive = true} (or the value carries a sensitive mark): the values are
 *     never rendered
 */
public record OutputChange(
    String name,
    List<String> actions,
    Object before,
    Object after,
    boolean afterUnknown,
    boolean sensitive) {
  public OutputChange {
    actions = List.copyOf(actions);
  }

  public boolean isChange() {
    return !actions.equals(List.of("no-op"));
  }
}
