package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The instances of a resource (docs/planning.md "Instances: count and for_each"): {@code count}
 * must be a known whole number, {@code for_each} a known map or set of strings without sensitive
 * values (their keys become instance addresses); without either, the one instance without a key.
 */
final class InstanceExpansion {
  private InstanceExpansion() {}

  /**
   * The instance keys of a resource; null when they cannot be known (diagnostic added).
   *
   * @param validateOnly {@code validate}: an unknown count or for_each is no error
   * @param instances the plan's instance count, which refuses keys beyond its limits
   */
  static List<InstanceKey> keys(
      ConfigModel model,
      ResourceDecl r,
      EvalContext ctx,
      Diagnostics diagnostics,
      boolean validateOnly,
      InstanceCount instances) {
    return keys(
        model, r.count(), r.forEach(), r.address(), ctx, diagnostics, validateOnly, instances);
  }

  /**
   * The instance keys of what has {@code count} or {@code for_each} (a resource, or a module call
   * named {@code address}); null when they cannot be known (diagnostic added).
   */
  static List<InstanceKey> keys(
      ConfigModel model,
      Optional<Expression> count,
      Optional<Expression> forEach,
      String address,
      EvalContext ctx,
      Diagnostics diagnostics,
      boolean validateOnly,
      InstanceCount instances) {
    if (count.isPresent()) {
      return countKeys(model, count.get(), address, ctx, diagnostics, validateOnly, instances);
    }
    if (forEach.isPresent()) {
      return forEachKeys(model, forEach.get(), address, ctx, diagnostics, validateOnly, instances);
    }
    return List.of(InstanceKey.NONE);
  }

  /** {@code count}: a known whole number, zero or more; the keys 0 to count - 1. */
  private static List<InstanceKey> countKeys(
      ConfigModel model,
      Expression count,
      String address,
      EvalContext ctx,
      Diagnostics diagnostics,
      boolean validateOnly,
      InstanceCount instances) {
    EvalResult result = model.evaluateExpression(count, ctx);
    diagnostics.addAll(result.diagnostics());
    if (result.hasErrors()) {
      return null;
    }
    Value v = result.value();
    if (!v.isWhollyKnown()) {
      if (!validateOnly) {
        diagnostics.error(
            "Invalid count argument",
            "The \"count\" value depends on values that cannot be determined until apply, so"
                + " Stagecraft cannot predict how many instances will be created. Use a value"
                + " known at plan time (a literal, variable or local value).",
            count.range());
      }
      return null;
    }
    BigDecimal n = null;
    if (v instanceof Value.NumberValue num) {
      n = num.value();
    } else if (v instanceof Value.StringValue str) {
      // count converts to a number as in Terraform: "2" is 2
      try {
        n = new BigDecimal(str.asString().strip());
      } catch (NumberFormatException e) {
        n = null;
      }
    }
    if (n == null || n.signum() < 0 || n.stripTrailingZeros().scale() > 0) {
      diagnostics.error(
          "Invalid count argument",
          "The given \"count\" argument value is unsuitable: it must be a whole number, zero"
              + " or more.",
          count.range());
      return null;
    }
    if (!instances.admit("count is " + Value.number(n).asString(), n, address, count.range())) {
      return null;
    }
    List<InstanceKey> keys = new ArrayList<>();
    for (int i = 0; i < n.intValue(); i++) {
      keys.add(InstanceKey.index(i));
    }
    return keys;
  }

  /** {@code for_each}: a known map or set of strings, not sensitive; its keys, sorted. */
  private static List<InstanceKey> forEachKeys(
      ConfigModel model,
      Expression forEach,
      String address,
      EvalContext ctx,
      Diagnostics diagnostics,
      boolean validateOnly,
      InstanceCount instances) {
    EvalResult result = model.evaluateExpression(forEach, ctx);
    diagnostics.addAll(result.diagnostics());
    if (result.hasErrors()) {
      return null;
    }
    Value v = result.value();
    var range = forEach.range();
    if (!v.isWhollyKnown()) {
      if (!validateOnly) {
        diagnostics.error(
            "Invalid for_each argument",
            "The \"for_each\" value depends on values that cannot be determined until apply,"
                + " so Stagecraft cannot predict how many instances will be created. Use keys"
                + " known at plan time.",
            range);
      }
      return null;
    }
    if (v.containsSensitive()) {
      diagnostics.error(
          "Invalid for_each argument",
          "Sensitive values, or values derived from sensitive values, cannot be used as"
              + " for_each arguments: the keys would appear in instance addresses.",
          range);
      return null;
    }
    int size =
        v instanceof Value.ObjectValue o
            ? o.attributes().size()
            : v instanceof Value.ListValue l ? l.elements().size() : 0;
    if (!instances.admit(
        "for_each has " + size + " elements", BigDecimal.valueOf(size), address, range)) {
      return null;
    }
    List<InstanceKey> keys = new ArrayList<>();
    switch (v) {
      case Value.ObjectValue o ->
          new TreeMap<>(o.attributes()).forEach((k, value) -> keys.add(InstanceKey.each(k, value)));
      case Value.ListValue l -> {
        Set<String> seen = new TreeSet<>();
        for (Value e : l.elements()) {
          if (!(e instanceof Value.StringValue s)) {
            diagnostics.error(
                "Invalid for_each argument",
                "The given \"for_each\" argument value is unsuitable: a set must contain"
                    + " strings only.",
                range);
            return null;
          }
          seen.add(s.value());
        }
        seen.forEach(k -> keys.add(InstanceKey.each(k, Value.string(k))));
      }
      default -> {
        diagnostics.error(
            "Invalid for_each argument",
            "The given \"for_each\" argument value is unsuitable: the \"for_each\" argument"
                + " must be a map, or set of strings, and you have provided a value of type "
                + v.typeName()
                + ".",
            range);
        return null;
      }
    }
    return keys;
  }
}
