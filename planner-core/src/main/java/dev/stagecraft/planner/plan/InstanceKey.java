package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.Value;

/**
 * The key of one instance of a resource: none (a single-instance resource), an {@link Integer}
 * ({@code count.index}) or a {@link String} ({@code each.key}, with {@code each.value}).
 *
 * @param key null, Integer or String
 * @param eachValue {@code each.value} for {@code for_each} instances, else null
 */
public record InstanceKey(Object key, Value eachValue) {
  public static final InstanceKey NONE = new InstanceKey(null, null);

  public static InstanceKey index(int index) {
    return new InstanceKey(index, null);
  }

  public static InstanceKey each(String key, Value value) {
    return new InstanceKey(key, value);
  }

  /** {@code ""}, {@code [0]} or {@code ["key"]}: what follows {@code type.name} in the address. */
  public String suffix() {
    return suffixOf(key);
  }

  static String suffixOf(Object key) {
    if (key == null) {
      return "";
    }
    if (key instanceof Integer i) {
      return "[" + i + "]";
    }
    return "[\"" + key.toString().replace("\"", "\\\"") + "\"]";
  }

  /** The resource part of an instance address ({@code type.name}). */
  public static String resourceOf(String address) {
    int open = address.indexOf('[');
    return open < 0 ? address : address.substring(0, open);
  }

  /** The key written in an instance address; {@code each.value} is not recoverable (null). */
  public static InstanceKey parse(String address) {
    int open = address.indexOf('[');
    if (open < 0 || !address.endsWith("]")) {
      return NONE;
    }
    String key = address.substring(open + 1, address.length() - 1);
    if (key.startsWith("\"")) {
      return new InstanceKey(key.substring(1, key.length() - 1).replace("\\\"", "\""), null);
    }
    try {
      return index(Integer.parseInt(key));
    } catch (NumberFormatException e) {
      return new InstanceKey(key, null);
    }
  }
}
