package dev.stagecraft.planner.graph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A directed graph of named nodes where an edge {@code a → b} means "a depends on b". Insertion
 * order is kept so that every traversal is deterministic. Not thread-safe; build it, then read it.
 */
public final class DependencyGraph {
  private final Map<String, Set<String>> dependencies = new LinkedHashMap<>();

  public DependencyGraph addNode(String node) {
    dependencies.computeIfAbsent(node, n -> new LinkedHashSet<>());
    return this;
  }

  /** Records that {@code from} depends on {@code to}; both become nodes. */
  public DependencyGraph addEdge(String from, String to) {
    addNode(from);
    addNode(to);
    dependencies.get(from).add(to);
    return this;
  }

  public Set<String> nodes() {
    return Collections.unmodifiableSet(dependencies.keySet());
  }

  public Set<String> dependenciesOf(String node) {
    return Collections.unmodifiableSet(dependencies.getOrDefault(node, Set.of()));
  }

  /** Every node {@code node} depends on, directly or through others. */
  public Set<String> transitiveDependenciesOf(String node) {
    Set<String> seen = new LinkedHashSet<>();
    List<String> stack = new ArrayList<>(dependenciesOf(node));
    while (!stack.isEmpty()) {
      String next = stack.remove(stack.size() - 1);
      if (seen.add(next)) {
        stack.addAll(dependenciesOf(next));
      }
    }
    return seen;
  }

  /**
   * The first cycle found, as the list of its nodes in dependency order with the first node
   * repeated at the end ({@code a → b → a}), or empty when the graph is acyclic.
   */
  public Optional<List<String>> findCycle() {
    Map<String, Integer> color = new LinkedHashMap<>();
    for (String start : dependencies.keySet()) {
      if (color.getOrDefault(start, 0) == 0) {
        List<String> path = new ArrayList<>();
        Optional<List<String>> cycle = visit(start, color, path);
        if (cycle.isPresent()) {
          return cycle;
        }
      }
    }
    return Optional.empty();
  }

  private Optional<List<String>> visit(String node, Map<String, Integer> color, List<String> path) {
    // iterative DFS would avoid deep recursion; configurations are shallow enough for recursion
    color.put(node, 1);
    path.add(node);
    for (String dep : dependenciesOf(node)) {
      int c = color.getOrDefault(dep, 0);
      if (c == 1) {
        List<String> cycle = new ArrayList<>(path.subList(path.indexOf(dep), path.size()));
        cycle.add(dep);
        return Optional.of(cycle);
      }
      if (c == 0) {
        Optional<List<String>> found = visit(dep, color, path);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    path.remove(path.size() - 1);
    color.put(node, 2);
    return Optional.empty();
  }

  /**
   * Nodes ordered so that every node comes after all of its dependencies (Kahn's algorithm; ties
   * keep insertion order).
   *
   * @throws IllegalStateException when the graph has a cycle (check {@link #findCycle()} first)
   */
  public List<String> topologicalOrder() {
    Map<String, Integer> remaining = new LinkedHashMap<>();
    Map<String, List<String>> dependents = new LinkedHashMap<>();
    for (var e : dependencies.entrySet()) {
      remaining.put(e.getKey(), e.getValue().size());
      for (String dep : e.getValue()) {
        dependents.computeIfAbsent(dep, d -> new ArrayList<>()).add(e.getKey());
      }
    }
    List<String> order = new ArrayList<>();
    List<String> ready = new ArrayList<>();
    remaining.forEach(
        (n, count) -> {
          if (count == 0) {
            ready.add(n);
          }
        });
    while (!ready.isEmpty()) {
      String n = ready.remove(0);
      order.add(n);
      for (String dependent : dependents.getOrDefault(n, List.of())) {
        if (remaining.merge(dependent, -1, Integer::sum) == 0) {
          ready.add(dependent);
        }
      }
    }
    if (order.size() != dependencies.size()) {
      throw new IllegalStateException("graph has a cycle: " + findCycle().orElse(List.of()));
    }
    return order;
  }
}
