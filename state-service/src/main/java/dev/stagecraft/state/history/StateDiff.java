package dev.stagecraft.state.history;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The difference between two versions of a workspace's state, as plain JSON-able data: which
 * instances were added, removed or changed — and for a changed one, which top-level attributes
 * (with before/after values) and which other fields ({@code status}, {@code dependencies}, ...) —
 * and which outputs changed.
 *
 * <p>Secrets are never shown: an attribute named by either version's {@code sensitive_attributes}
 * and an output marked {@code sensitive} appear with the value {@value #MASK} on both sides (that
 * they changed is shown, what they are is not). Pure function; thread-safe.
 */
public final class StateDiff {
  public static final String MASK = "(sensitive value)";

  private StateDiff() {}

  /**
   * @param from the older version's v4 document (as {@link TerraformStateV4#render} gives it)
   * @param to the newer one
   */
  public static Map<String, Object> between(Map<String, Object> from, Map<String, Object> to) {
    Map<String, Map<?, ?>> before = instances(from);
    Map<String, Map<?, ?>> after = instances(to);
    Set<String> addresses = new TreeSet<>(before.keySet());
    addresses.addAll(after.keySet());
    List<Object> changes = new ArrayList<>();
    for (String address : addresses) {
      Map<?, ?> a = before.get(address);
      Map<?, ?> b = after.get(address);
      if (a != null && b != null && DocumentDecider.sameJson(a, b)) {
        continue;
      }
      Map<String, Object> change = new LinkedHashMap<>();
      change.put("address", address);
      change.put("change", a == null ? "added" : b == null ? "removed" : "changed");
      Set<String> sensitive = new HashSet<>(sensitiveNames(a));
      sensitive.addAll(sensitiveNames(b));
      change.put("attributes", attributes(a, b, sensitive));
      if (a != null && b != null) {
        Set<String> fields = new LinkedHashSet<>();
        Set<String> keys = new TreeSet<>();
        keys.addAll(stringKeys(a));
        keys.addAll(stringKeys(b));
        for (String key : keys) {
          if (!key.equals("attributes") && !DocumentDecider.sameJson(a.get(key), b.get(key))) {
            fields.add(key);
          }
        }
        change.put("fields", List.copyOf(fields));
      }
      changes.add(change);
    }
    Map<String, Object> diff = new LinkedHashMap<>();
    diff.put("from", from.get("serial"));
    diff.put("to", to.get("serial"));
    diff.put("instances", changes);
    diff.put("outputs", outputs(from, to));
    return diff;
  }

  /** Changed top-level attributes: name, before, after (masked when sensitive). */
  private static List<Object> attributes(Map<?, ?> a, Map<?, ?> b, Set<String> sensitive) {
    Map<?, ?> x = a == null ? Map.of() : asMap(a.get("attributes"));
    Map<?, ?> y = b == null ? Map.of() : asMap(b.get("attributes"));
    Set<String> names = new TreeSet<>(stringKeys(x));
    names.addAll(stringKeys(y));
    List<Object> out = new ArrayList<>();
    for (String name : names) {
      boolean inX = x.containsKey(name);
      boolean inY = y.containsKey(name);
      if (inX && inY && DocumentDecider.sameJson(x.get(name), y.get(name))) {
        continue;
      }
      boolean secret = sensitive.contains(name);
      Map<String, Object> attribute = new LinkedHashMap<>();
      attribute.put("name", name);
      attribute.put("sensitive", secret);
      attribute.put("before", !inX ? null : secret ? MASK : x.get(name));
      attribute.put("after", !inY ? null : secret ? MASK : y.get(name));
      out.add(attribute);
    }
    return out;
  }

  private static List<Object> outputs(Map<String, Object> from, Map<String, Object> to) {
    Map<?, ?> x = asMap(from.get("outputs"));
    Map<?, ?> y = asMap(to.get("outputs"));
    Set<String> names = new TreeSet<>(stringKeys(x));
    names.addAll(stringKeys(y));
    List<Object> out = new ArrayList<>();
    for (String name : names) {
      Map<?, ?> a = x.containsKey(name) ? asMap(x.get(name)) : null;
      Map<?, ?> b = y.containsKey(name) ? asMap(y.get(name)) : null;
      if (a != null && b != null && DocumentDecider.sameJson(a, b)) {
        continue;
      }
      boolean secret =
          (a != null && Boolean.TRUE.equals(a.get("sensitive")))
              || (b != null && Boolean.TRUE.equals(b.get("sensitive")));
      Map<String, Object> change = new LinkedHashMap<>();
      change.put("name", name);
      change.put("change", a == null ? "added" : b == null ? "removed" : "changed");
      change.put("sensitive", secret);
      change.put("before", a == null ? null : secret ? MASK : a.get("value"));
      change.put("after", b == null ? null : secret ? MASK : b.get("value"));
      out.add(change);
    }
    return out;
  }

  /**
   * Names of the top-level attributes an instance's {@code sensitive_attributes} covers. Both forms
   * Terraform has written are read: a list of paths (each a list of steps) and a list of single
   * steps; a step is {@code {"type":"get_attr","value":"password"}}.
   */
  static Set<String> sensitiveNames(Map<?, ?> instance) {
    Set<String> names = new HashSet<>();
    if (instance == null || !(instance.get("sensitive_attributes") instanceof List<?> paths)) {
      return names;
    }
    for (Object path : paths) {
      Object first = path instanceof List<?> steps && !steps.isEmpty() ? steps.get(0) : path;
      if (first instanceof Map<?, ?> step && step.get("value") instanceof String name) {
        names.add(name);
      }
    }
    return names;
  }

  /** Current instance objects by address (deposed objects as {@code address (deposed KEY)}). */
  private static Map<String, Map<?, ?>> instances(Map<String, Object> doc) {
    Map<String, Map<?, ?>> out = new TreeMap<>();
    if (!(doc.get("resources") instanceof List<?> resources)) {
      return out;
    }
    for (Object r : resources) {
      Map<?, ?> resource = asMap(r);
      for (Object i : resource.get("instances") instanceof List<?> l ? l : List.of()) {
        Map<?, ?> instance = asMap(i);
        Object key = instance.get("index_key");
        String address =
            new InstanceAddress(
                    (String) resource.get("module"),
                    "data".equals(resource.get("mode")) ? "data" : "managed",
                    String.valueOf(resource.get("type")),
                    String.valueOf(resource.get("name")),
                    key instanceof Number n ? (Object) n.longValue() : key)
                .toString();
        if (instance.get("deposed") != null) {
          address += " (deposed " + instance.get("deposed") + ")";
        }
        out.put(address, instance);
      }
    }
    return out;
  }

  private static Map<?, ?> asMap(Object value) {
    return value instanceof Map<?, ?> m ? m : Map.of();
  }

  private static Set<String> stringKeys(Map<?, ?> map) {
    Set<String> keys = new LinkedHashSet<>();
    map.keySet().forEach(k -> keys.add(String.valueOf(k)));
    return keys;
  }
}
