package dev.stagecraft.state.history;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The root outputs a run records (docs/adr/0064), checked and put in Terraform's v4 form: name →
 * {@code {"value": ..., "type": <type JSON>, "sensitive": true|false}}, by name. A sensitive
 * output's value is whatever the planner sent — sealed (docs/adr/0024) when it has a keyring; the
 * state service never needs its clear value.
 */
final class RootOutputs {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
  private static final Set<String> PRIMITIVES = Set.of("string", "number", "bool", "dynamic");

  private RootOutputs() {}

  /**
   * {@code outputs} in the v4 form, {@code sensitive} filled in (absent = false).
   *
   * @throws IllegalArgumentException naming the output and field that is not of that form
   */
  static Map<String, Object> normalized(Object outputs) {
    if (!(outputs instanceof Map<?, ?> given)) {
      throw new IllegalArgumentException(
          "'outputs' must be an object of outputs by name, each {\"value\", \"type\","
              + " \"sensitive\"}");
    }
    Map<String, Object> out = new TreeMap<>();
    for (Map.Entry<?, ?> e : given.entrySet()) {
      String name = String.valueOf(e.getKey());
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "output name \"" + name + "\" is not a valid name (letters, digits, _ and -)");
      }
      if (!(e.getValue() instanceof Map<?, ?> output)) {
        throw new IllegalArgumentException(
            "outputs." + name + " must be an object {\"value\", \"type\", \"sensitive\"}");
      }
      for (Object key : output.keySet()) {
        if (!List.of("value", "type", "sensitive").contains(String.valueOf(key))) {
          throw new IllegalArgumentException(
              "outputs." + name + " has an unknown field \"" + key + "\"");
        }
      }
      if (!output.containsKey("value")) {
        throw new IllegalArgumentException("outputs." + name + " has no \"value\"");
      }
      if (!isType(output.get("type"))) {
        throw new IllegalArgumentException(
            "outputs."
                + name
                + ".type must be a Terraform type in JSON (\"string\", [\"list\",\"string\"],"
                + " [\"object\",{...}] ...); got "
                + output.get("type"));
      }
      Object sensitive = output.get("sensitive");
      if (sensitive != null && !(sensitive instanceof Boolean)) {
        throw new IllegalArgumentException("outputs." + name + ".sensitive must be true or false");
      }
      Map<String, Object> normal = new LinkedHashMap<>();
      normal.put("value", output.get("value"));
      normal.put("type", output.get("type"));
      normal.put("sensitive", Boolean.TRUE.equals(sensitive));
      out.put(name, normal);
    }
    return out;
  }

  /** Terraform's JSON encoding of a type (cty): a primitive name or a [kind, element(s)] pair. */
  static boolean isType(Object type) {
    if (type instanceof String s) {
      return PRIMITIVES.contains(s);
    }
    if (!(type instanceof List<?> pair) || pair.size() != 2 || !(pair.get(0) instanceof String)) {
      return false;
    }
    Object inner = pair.get(1);
    return switch ((String) pair.get(0)) {
      case "list", "set", "map" -> isType(inner);
      case "tuple" -> inner instanceof List<?> l && l.stream().allMatch(RootOutputs::isType);
      case "object" ->
          inner instanceof Map<?, ?> m && m.values().stream().allMatch(RootOutputs::isType);
      default -> false;
    };
  }
}
