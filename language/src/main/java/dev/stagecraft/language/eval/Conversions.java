package dev.stagecraft.language.eval;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Terraform's implicit primitive conversions. Marks are ignored here; callers propagate them. */
public final class Conversions {
  private Conversions() {}

  /** string ← string | number | bool. */
  public static Optional<String> toStr(Value v) {
    return switch (v) {
      case Value.StringValue s -> Optional.of(s.value());
      case Value.NumberValue n -> Optional.of(Value.formatNumber(n.value()));
      case Value.BoolValue b -> Optional.of(Boolean.toString(b.value()));
      default -> Optional.empty();
    };
  }

  /** number ← number | numeric string. */
  public static Optional<BigDecimal> toNumber(Value v) {
    return switch (v) {
      case Value.NumberValue n -> Optional.of(n.value());
      case Value.StringValue s -> parseNumber(s.value());
      default -> Optional.empty();
    };
  }

  private static Optional<BigDecimal> parseNumber(String s) {
    if (s.isEmpty() || !s.equals(s.strip())) {
      return Optional.empty();
    }
    try {
      return Optional.of(new BigDecimal(s));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** bool ← bool | "true" | "false". */
  public static Optional<Boolean> toBool(Value v) {
    return switch (v) {
      case Value.BoolValue b -> Optional.of(b.value());
      case Value.StringValue s when s.value().equals("true") -> Optional.of(true);
      case Value.StringValue s when s.value().equals("false") -> Optional.of(false);
      default -> Optional.empty();
    };
  }

  /** Structural equality ignoring marks; numbers compare numerically. Both must be known. */
  public static boolean valuesEqual(Value a, Value b) {
    return switch (a) {
      case Value.StringValue s -> b instanceof Value.StringValue t && s.value().equals(t.value());
      case Value.NumberValue n ->
          b instanceof Value.NumberValue m && n.value().compareTo(m.value()) == 0;
      case Value.BoolValue x -> b instanceof Value.BoolValue y && x.value() == y.value();
      case Value.NullValue x -> b instanceof Value.NullValue;
      case Value.UnknownValue x -> false;
      case Value.ListValue l ->
          b instanceof Value.ListValue m && listEq(l.elements(), m.elements());
      case Value.ObjectValue o ->
          b instanceof Value.ObjectValue p && mapEq(o.attributes(), p.attributes());
    };
  }

  private static boolean listEq(List<Value> a, List<Value> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!valuesEqual(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean mapEq(Map<String, Value> a, Map<String, Value> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    for (Map.Entry<String, Value> e : a.entrySet()) {
      if (!valuesEqual(e.getValue(), b.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
