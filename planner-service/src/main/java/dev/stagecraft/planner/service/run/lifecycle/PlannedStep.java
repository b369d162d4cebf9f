package dev.stagecraft.planner.service.run.lifecycle;

import java.util.List;
import java.util.Objects;

/**
 * One action of the plan a run applies, as the lifecycle needs it: its instance address, its action
 * ({@code create}, {@code update}, {@code delete}, {@code replace}, …) and the instance addresses
 * it waits for. Whoever builds the {@link RunCommand.Planned} command expands a wait on a repeated
 * resource (count / for_each) into its instances changed by the plan, as {@code
 * ApplySchedule#status} reads it; a wait on an address without an action in the plan is satisfied.
 */
public record PlannedStep(String address, String action, List<String> waitsFor) {
  public PlannedStep {
    Objects.requireNonNull(address, "address");
    waitsFor = List.copyOf(waitsFor);
  }

  public static PlannedStep of(String address, String... waitsFor) {
    return new PlannedStep(address, "create", List.of(waitsFor));
  }
}
