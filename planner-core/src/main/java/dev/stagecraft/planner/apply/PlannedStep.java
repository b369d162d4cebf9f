package dev.stagecraft.planner.apply;

import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlannedAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One action of the plan a run applies, as its schedule ({@link ApplySteps}) needs it: its instance
 * address, its action ({@code create}, {@code update}, {@code delete}, {@code replace}, …) and the
 * instance addresses it waits for ({@link #stepsOf} expands a wait on a repeated resource).
 */
public record PlannedStep(String address, String action, List<String> waitsFor) {
  public PlannedStep {
    Objects.requireNonNull(address, "address");
    waitsFor = List.copyOf(waitsFor);
  }

  /**
   * The steps of {@code plan}, in plan order: each change's action on the wire, a wait on a
   * repeated resource (count / for_each) expanded to its instances changed by this plan, a wait on
   * an address without an action in this plan dropped (it is satisfied).
   */
  public static List<PlannedStep> stepsOf(Plan plan) {
    Map<String, List<String>> instancesOf = new LinkedHashMap<>();
    Set<String> addresses = new HashSet<>();
    for (PlannedAction a : plan.changes()) {
      addresses.add(a.address());
      if (!a.address().equals(a.resourceAddress())) {
        instancesOf.computeIfAbsent(a.resourceAddress(), k -> new ArrayList<>()).add(a.address());
      }
    }
    List<PlannedStep> steps = new ArrayList<>();
    for (PlannedAction a : plan.changes()) {
      List<String> waits = new ArrayList<>();
      for (String w : a.waitFor()) {
        if (addresses.contains(w)) {
          waits.add(w);
        } else {
          waits.addAll(instancesOf.getOrDefault(w, List.of()));
        }
      }
      steps.add(new PlannedStep(a.address(), a.wireAction(), waits));
    }
    return steps;
  }

  /** A {@code create} step (for tests and examples). */
  public static PlannedStep of(String address, String... waitsFor) {
    return new PlannedStep(address, "create", List.of(waitsFor));
  }
}
