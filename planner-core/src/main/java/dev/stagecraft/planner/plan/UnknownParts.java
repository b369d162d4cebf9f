package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.Value;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An attribute known only in part at plan time ({@code triggers = { always = timestamp(), x = "a"
 * }}), written as Terraform's JSON plan writes it: {@code after} holds the known parts (unknown
 * values left out of objects, null in lists: Terraform's {@code omitUnknowns}), {@code
 * after_unknown} the same structure with {@code true} at each unknown value (objects list only
 * those, lists every element: Terraform's {@code unknownAsBool}).
 */
final class UnknownParts {
  private UnknownParts() {}

  /** The known parts of a value that is not wholly known, as plain data (marks removed). */
  static Object knownParts(Value value) {
    return switch (value) {
      case Value.UnknownValue u -> null;
      case Value.ObjectValue o -> {
        Map<String, Object> out = new LinkedHashMap<>();
        o.attributes()
            .forEach(
                (k, v) -> {
                  if (v.isKnown()) {
                    out.put(k, knownParts(v));
                  }
                });
        yield out;
      }
      case Value.ListValue l -> {
        List<Object> out = new ArrayList<>();
        l.elements().forEach(e -> out.add(knownParts(e)));
        yield out;
      }
      default -> value.isNull() ? null : value.unmarkDeep().toJava();
    };
  }

  /**
   * Terraform's {@code after_unknown} of a value: {@code true} when it is unknown, {@code false}
   * when known and primitive or null, an object with an entry for each element not {@code false}, a
   * list with one entry per element.
   */
  static Object shape(Value value) {
    return switch (value) {
      case Value.UnknownValue u -> true;
      case Value.ObjectValue o -> {
        Map<String, Object> out = new LinkedHashMap<>();
        o.attributes()
            .forEach(
                (k, v) -> {
                  Object s = shape(v);
                  if (!Boolean.FALSE.equals(s)) {
                    out.put(k, s);
                  }
                });
        yield out;
      }
      case Value.ListValue l -> {
        List<Object> out = new ArrayList<>();
        l.elements().forEach(e -> out.add(shape(e)));
        yield out;
      }
      default -> false;
    };
  }
}
