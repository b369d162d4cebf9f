package dev.stagecraft.planner.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code ignore_changes} paths applied to planned attributes: the prior value at the path replaces
 * the configured one (or the configured one is dropped when the prior has none), as Terraform does
 * before it compares configuration with state.
 */
final class IgnoreChanges {
  private IgnoreChanges() {}

  /** The value at {@code path} (attribute name, then map keys or list indexes). */
  static Optional<Object> get(Map<String, Object> attributes, List<Object> path) {
    if (attributes == null || path.isEmpty()) {
      return Optional.empty();
    }
    Object current = attributes;
    for (Object step : path) {
      if (current instanceof Map<?, ?> m && m.containsKey(String.valueOf(step))) {
        current = m.get(String.valueOf(step));
      } else if (current instanceof List<?> l
          && step instanceof Integer i
          && i >= 0
          && i < l.size()) {
        current = l.get(i);
      } else {
        return Optional.empty();
      }
    }
    return Optional.ofNullable(current);
  }

  static void apply(
      Map<String, Object> after,
      Set<String> unknown,
      Map<String, Object> before,
      List<Object> path) {
    String attribute = String.valueOf(path.get(0));
    Optional<Object> prior = get(before, path);
    if (path.size() == 1) {
      unknown.remove(attribute);
      if (prior.isPresent()) {
        after.put(attribute, prior.get());
      } else {
        after.remove(attribute);
      }
      return;
    }
    if (unknown.contains(attribute)) {
      return;
    }
    Object root = copy(after.get(attribute));
    if (root == null) {
      root = path.get(1) instanceof Integer ? new ArrayList<>() : new LinkedHashMap<>();
    }
    set(root, path.subList(1, path.size()), prior.orElse(null));
    after.put(attribute, root);
  }

  @SuppressWarnings("unchecked")
  private static void set(Object container, List<Object> path, Object value) {
    Object step = path.get(0);
    if (path.size() == 1) {
      if (container instanceof Map<?, ?> m) {
        if (value == null) {
          ((Map<String, Object>) m).remove(String.valueOf(step));
        } else {
          ((Map<String, Object>) m).put(String.valueOf(step), value);
        }
      } else if (container instanceof List<?> l && step instanceof Integer i) {
        List<Object> list = (List<Object>) l;
        if (i < list.size()) {
          list.set(i, value);
        } else if (value != null) {
          list.add(value);
        }
      }
      return;
    }
    Object next =
        container instanceof Map<?, ?> m
            ? m.get(String.valueOf(step))
            : container instanceof List<?> l && step instanceof Integer i && i < l.size()
                ? l.get(i)
                : null;
    if (next != null) {
      set(next, path.subList(1, path.size()), value);
    }
  }

  private static Object copy(Object value) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), copy(v)));
      return out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(v -> out.add(copy(v)));
      return out;
    }
    return value;
  }
}
