package dev.stagecraft.planner.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Keeps sensitive values out of everything the plan shows (design §5, §8). */
final class Redaction {
  static final String SENSITIVE = "(sensitive value)";

  private Redaction() {}

  /**
   * A deep copy where every string containing a sensitive value, and every sealed value
   * (docs/adr/0024), is {@code (sensitive value)}.
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> scrub(Map<String, Object> document, Set<String> sensitive) {
    return document == null ? null : (Map<String, Object>) scrubValue(document, sensitive);
  }

  private static Object scrubValue(Object value, Set<String> sensitive) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), scrubValue(v, sensitive)));
      return out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(v -> out.add(scrubValue(v, sensitive)));
      return out;
    }
    if (value instanceof String s
        && (containsAny(s, sensitive) || dev.stagecraft.schemas.seal.SealedValues.isSealed(s))) {
      return SENSITIVE;
    }
    return value;
  }

  /**
   * Top-level attributes of a prior instance that are sensitive: those containing one of the
   * sensitive strings, and those holding a value that was sealed in state.
   */
  static Set<String> sensitiveAttributes(PriorInstance instance, Set<String> sensitive) {
    Set<String> out = attributesContaining(instance.attributes(), sensitive);
    instance.sensitivePaths().forEach(path -> out.add(String.valueOf(path.get(0))));
    return out;
  }

  /** Top-level attributes whose value contains one of the sensitive strings. */
  static Set<String> attributesContaining(Map<String, Object> attributes, Set<String> sensitive) {
    Set<String> out = new LinkedHashSet<>();
    if (attributes == null || sensitive.isEmpty()) {
      return out;
    }
    attributes.forEach(
        (k, v) -> {
          if (contains(v, sensitive)) {
            out.add(k);
          }
        });
    return out;
  }

  static boolean contains(Object value, Set<String> sensitive) {
    if (value instanceof Map<?, ?> m) {
      return m.values().stream().anyMatch(v -> contains(v, sensitive));
    }
    if (value instanceof List<?> l) {
      return l.stream().anyMatch(v -> contains(v, sensitive));
    }
    return value instanceof String s && containsAny(s, sensitive);
  }

  private static boolean containsAny(String text, Set<String> sensitive) {
    for (String s : sensitive) {
      if (!s.isEmpty() && text.contains(s)) {
        return true;
      }
    }
    return false;
  }
}
