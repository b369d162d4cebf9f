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

  /**
   * The resource part of an instance address ({@code type.name}, {@code module.a["x"].type.name}).
   */
  public static String resourceOf(String address) {
    int open = keyStart(address);
    return open < 0 ? address : address.substring(0, open);
  }

  /** The key written in an instance address; {@code each.value} is not recoverable (null). */
  public static InstanceKey parse(String address) {
    int open = keyStart(address);
    if (open < 0) {
      return NONE;
    }
    String key = address.substring(open + 1, address.length() - 1);
    if (key.startsWith("\"")) {
      return new InstanceKey(unquote(key), null);
    }
    try {
      return index(Integer.parseInt(key));
    } catch (NumberFormatException e) {
      return new InstanceKey(key, null);
    }
  }

  /**
   * Where the instance key of an address starts (the {@code [} of its trailing {@code [key]}), or
   * -1 when it has none. The keys of module instances ({@code module.app["eu"].type.name}) and
   * brackets inside quoted keys are not it.
   */
  static int keyStart(String address) {
    if (!address.endsWith("]")) {
      return -1;
    }
    int start = -1;
    int depth = 0;
    boolean quoted = false;
    for (int i = 0; i < address.length(); i++) {
      char c = address.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
      } else if (depth > 0 && c == '"') {
        quoted = true;
      } else if (c == '[') {
        if (depth++ == 0) {
          start = i;
        }
      } else if (c == ']') {
        depth--;
      } else if (c == '.' && depth == 0) {
        start = -1;
      }
    }
    return start;
  }

  /** A quoted key's text: {@code "a\"b"} → {@code a"b}. */
  static String unquote(String quoted) {
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < quoted.length() - 1; i++) {
      char c = quoted.charAt(i);
      if (c == '\\' && i + 1 < quoted.length() - 1) {
        c = quoted.charAt(++i);
      }
      out.append(c);
    }
    return out.toString();
  }
}
