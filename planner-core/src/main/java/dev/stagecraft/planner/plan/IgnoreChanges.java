package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.Value;
import java.util.ArrayList;
import java.util.HashSet;
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
public final class IgnoreChanges {
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

  /**
   * The planned value of an attribute {@code ignore_changes} names (wholly or in part), as other
   * expressions see it: {@code value} (the configured value with the prior one at every ignored
   * path) marked where the configured value was marked and, with the state's mark, wherever it
   * holds a value the prior state recorded as sensitive. A value taken from state keeps the marks
   * state recorded, so an output, a condition's message or another resource reading it never gets a
   * sealed value in clear (docs/planning.md).
   *
   * @param ignored every ignored path of the resource (attribute name first)
   */
  static Value plannedValue(
      String attribute,
      Value value,
      Value configured,
      PriorInstance prior,
      List<List<Object>> ignored) {
    List<List<Object>> kept = new ArrayList<>();
    for (List<Object> sensitive : prior.sensitivePaths()) {
      for (List<Object> path : ignored) {
        if (!attribute.equals(String.valueOf(path.get(0)))) {
          continue;
        }
        if (startsWith(sensitive, path)) {
          // the secret lies inside the ignored part: kept from state, marked at its own path
          kept.add(sensitive.subList(1, sensitive.size()));
        } else if (startsWith(path, sensitive)) {
          // the ignored part lies inside the secret
          kept.add(path.subList(1, path.size()));
        }
      }
    }
    if (!value.isWhollyKnown()) {
      Value marked = Value.markedLikeAnyOf(value, List.of(configured));
      return kept.isEmpty() ? marked : marked.markFromState();
    }
    Value planned = configured.copyMarksTo(value);
    for (List<Object> path : kept) {
      planned = planned.markedFromStateAt(path);
    }
    return planned;
  }

  private static boolean startsWith(List<Object> path, List<Object> prefix) {
    if (prefix.size() > path.size()) {
      return false;
    }
    for (int i = 0; i < prefix.size(); i++) {
      if (!String.valueOf(path.get(i)).equals(String.valueOf(prefix.get(i)))) {
        return false;
      }
    }
    return true;
  }

  /**
   * At apply, for an attribute the plan knew only in part: the prior value at {@code path} stands
   * in for the one the attribute is applied with (known by now).
   */
  public static void keepPrior(
      Map<String, Object> attributes, Map<String, Object> before, List<Object> path) {
    apply(attributes, new HashSet<>(), new LinkedHashMap<>(), before, path);
  }

  /**
   * The prior value at {@code path} stands in for the configured one in {@code after}. An attribute
   * known only in part ({@code unknownParts}, see {@link PlannedAction#unknownParts()}) gets it at
   * that path too, and is no longer unknown there; once no unknown part is left it is known.
   */
  static void apply(
      Map<String, Object> after,
      Set<String> unknown,
      Map<String, Object> unknownParts,
      Map<String, Object> before,
      List<Object> path) {
    String attribute = String.valueOf(path.get(0));
    Optional<Object> prior = get(before, path);
    if (path.size() == 1) {
      unknown.remove(attribute);
      unknownParts.remove(attribute);
      if (prior.isPresent()) {
        after.put(attribute, prior.get());
      } else {
        after.remove(attribute);
      }
      return;
    }
    if (unknown.contains(attribute)) {
      Object shape = copy(unknownParts.get(attribute));
      if (shape == null) {
        return; // wholly unknown: nothing to put the prior value into
      }
      set(shape, path.subList(1, path.size()), null);
      if (containsTrue(shape)) {
        unknownParts.put(attribute, shape);
      } else {
        unknown.remove(attribute);
        unknownParts.remove(attribute);
      }
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

  private static boolean containsTrue(Object shape) {
    if (shape instanceof Map<?, ?> m) {
      return m.values().stream().anyMatch(IgnoreChanges::containsTrue);
    }
    if (shape instanceof List<?> l) {
      return l.stream().anyMatch(IgnoreChanges::containsTrue);
    }
    return Boolean.TRUE.equals(shape);
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
