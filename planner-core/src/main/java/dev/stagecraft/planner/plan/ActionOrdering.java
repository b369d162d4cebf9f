package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.graph.DependencyGraph;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The order of a plan's actions: what each waits for (see {@link #withOrder}). */
final class ActionOrdering {
  private final Map<String, PlannedAction> actions;
  private final PriorState prior;
  private final ConfigModel model;
  private final Diagnostics diagnostics;

  ActionOrdering(
      Map<String, PlannedAction> actions,
      PriorState prior,
      ConfigModel model,
      Diagnostics diagnostics) {
    this.actions = actions;
    this.prior = prior;
    this.model = model;
    this.diagnostics = diagnostics;
  }

  /**
   * Ordering (design §4): a create, update or replace waits for the creates, updates and replaces
   * of every instance of every resource it depends on (directly, through local values, {@code
   * depends_on} or {@code replace_triggered_by}); a delete or forget waits for every action on an
   * instance that depended on it in state, so dependents are changed or destroyed first.
   */
  List<PlannedAction> withOrder() {
    Map<String, List<String>> waits = new LinkedHashMap<>();
    // indexes built once, so ordering stays linear in the number of instances
    Map<String, List<String>> changesOfResource = new HashMap<>();
    Map<String, List<String>> priorDependents = new HashMap<>();
    for (PlannedAction b : actions.values()) {
      if (!b.isChange()) {
        continue;
      }
      if (!isRemoval(b)) {
        changesOfResource
            .computeIfAbsent(b.resourceAddress(), k -> new ArrayList<>())
            .add(b.address());
      }
      prior
          .instance(b.address())
          .ifPresent(
              p ->
                  p.dependencies()
                      .forEach(
                          d ->
                              priorDependents
                                  .computeIfAbsent(d, k -> new ArrayList<>())
                                  .add(b.address())));
    }
    for (PlannedAction a : actions.values()) {
      if (!a.isChange()) {
        continue;
      }
      Set<String> waitFor = new TreeSet<>();
      if (isRemoval(a)) {
        for (String b : priorDependents.getOrDefault(a.resourceAddress(), List.of())) {
          if (!b.equals(a.address())) {
            waitFor.add(b);
          }
        }
      } else {
        waitFor.addAll(nearestChangingDependencies(a.resourceAddress(), changesOfResource));
      }
      waits.put(a.address(), new ArrayList<>(waitFor));
    }
    DependencyGraph graph = new DependencyGraph();
    waits.forEach(
        (from, tos) -> {
          graph.addNode(from);
          tos.forEach(to -> graph.addEdge(from, to));
        });
    Optional<List<String>> cycle = graph.findCycle();
    if (cycle.isPresent()) {
      // dependencies recorded in state form a cycle: destroy those instances without order
      diagnostics.warning(
          "Cycle in recorded dependencies",
          "The dependencies recorded in state for "
              + String.join(" → ", cycle.get())
              + " form a cycle; their destroys are not ordered among each other.",
          null);
      for (String node : cycle.get()) {
        PlannedAction a = actions.get(node);
        if (a != null && isRemoval(a)) {
          waits.get(node).removeIf(w -> isRemoval(actions.get(w)));
        }
      }
    }
    List<PlannedAction> out = new ArrayList<>();
    for (PlannedAction a : actions.values()) {
      out.add(a.isChange() ? a.withWaitFor(waits.get(a.address())) : a);
    }
    return out;
  }

  /**
   * The changes an action on {@code resource} must wait for: those of the resources it depends on,
   * looking through resources and local values without changes to the nearest ones that change
   * (which in turn wait for theirs, so the order holds transitively).
   */
  private Set<String> nearestChangingDependencies(
      String resource, Map<String, List<String>> changesOfResource) {
    Set<String> out = new TreeSet<>();
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> queue = new ArrayDeque<>(model.graph().dependenciesOf(resource));
    while (!queue.isEmpty()) {
      String node = queue.poll();
      if (!seen.add(node)) {
        continue;
      }
      List<String> changes = changesOfResource.get(node);
      if (changes != null) {
        // one instance: its address; several (count / for_each): the resource's address,
        // which the apply schedule reads as "all of its changed instances"
        if (changes.size() == 1) {
          out.addAll(changes);
        } else {
          out.add(node);
        }
      } else {
        queue.addAll(model.graph().dependenciesOf(node));
      }
    }
    return out;
  }

  private static boolean isRemoval(PlannedAction a) {
    return a.action() == ActionType.DELETE || a.action() == ActionType.FORGET;
  }
}
