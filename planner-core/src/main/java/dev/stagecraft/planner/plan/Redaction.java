package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.seal.SealedValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Keeps sensitive values out of everything the plan shows (design §5, §8). */
final class Redaction {
  static final String SENSITIVE = "(sensitive value)";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Redaction() {}

  /**
   * A deep copy of a v4 state document where every string containing a sensitive value, every
   * sealed value (docs/adr/0024), every value at a path an instance lists in its {@code
   * sensitive_attributes} (a state pushed from Terraform holds those in clear) and the value of
   * every output the state marks {@code sensitive} is {@code (sensitive value)}.
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> scrub(Map<String, Object> document, Set<String> sensitive) {
    if (document == null) {
      return null;
    }
    Map<String, Object> out = (Map<String, Object>) scrubValue(document, sensitive);
    for (Object resource : listOf(out.get("resources"))) {
      for (Object instance : listOf(resource instanceof Map<?, ?> r ? r.get("instances") : null)) {
        if (instance instanceof Map<?, ?> i && i.get("sensitive_attributes") instanceof List<?> l) {
          JsonNode paths = MAPPER.valueToTree(l);
          PriorState.sensitivePaths(paths).forEach(path -> maskAt(i.get("attributes"), path, 0));
        }
      }
    }
    if (out.get("outputs") instanceof Map<?, ?> outputs) {
      outputs.values().stream()
          .filter(o -> o instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("sensitive")))
          .forEach(o -> ((Map<String, Object>) o).put("value", SENSITIVE));
    }
    return out;
  }

  private static List<?> listOf(Object value) {
    return value instanceof List<?> l ? l : List.of();
  }

  /** Replaces the value at {@code path} (map keys, list indexes) of a scrubbed copy. */
  @SuppressWarnings("unchecked")
  private static void maskAt(Object node, List<Object> path, int step) {
    Object key = path.get(step);
    boolean last = step == path.size() - 1;
    if (node instanceof Map<?, ?> m && m.get(String.valueOf(key)) != null) {
      if (last) {
        ((Map<String, Object>) m).put(String.valueOf(key), SENSITIVE);
      } else {
        maskAt(m.get(String.valueOf(key)), path, step + 1);
      }
    } else if (node instanceof List<?> l && key instanceof Integer i && i >= 0 && i < l.size()) {
      if (last) {
        ((List<Object>) l).set(i, SENSITIVE);
      } else {
        maskAt(l.get(i), path, step + 1);
      }
    }
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
    if (value instanceof String s && (containsAny(s, sensitive) || SealedValues.isSealed(s))) {
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
