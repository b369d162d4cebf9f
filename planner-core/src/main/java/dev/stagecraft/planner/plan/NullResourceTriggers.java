package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.types.Type;
import dev.stagecraft.language.types.TypeConstraints;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code null_resource}'s {@code triggers} is a map of strings, as in Terraform's null provider:
 * {@code triggers = { port = 2222 }} is planned and stored as {@code {"port": "2222"}}, so a state
 * Terraform wrote plans no change here. A list or object element is an error.
 */
final class NullResourceTriggers {
  private static final Type MAP_OF_STRING = new Type.MapOf(Type.STRING);

  private NullResourceTriggers() {}

  /** The configured value as a map of strings; the value unchanged with an error added. */
  static Value convert(Value triggers, SourceRange range, Diagnostics diagnostics) {
    TypeConstraints.Conversion c = TypeConstraints.convert(triggers, MAP_OF_STRING);
    if (c.ok()) {
      return c.value();
    }
    diagnostics.error(
        "Incorrect attribute value type",
        "Inappropriate value for attribute \"triggers\": "
            + c.error().orElseThrow()
            + ". The triggers of a null_resource are a map of strings; wrap a list or an object"
            + " in jsonencode().",
        range);
    return triggers;
  }

  /**
   * The prior state with every {@code null_resource}'s numbers and bools in {@code triggers} as the
   * strings Terraform would store; states written before triggers were converted held them as
   * numbers, and must still plan no change.
   */
  static PriorState asStrings(PriorState prior) {
    boolean any =
        prior.instances().values().stream()
            .anyMatch(i -> i.type().equals("null_resource") && hasNonString(i));
    if (!any) {
      return prior;
    }
    Map<String, PriorInstance> out = new LinkedHashMap<>();
    prior
        .instances()
        .forEach(
            (address, i) -> {
              if (!i.type().equals("null_resource") || !hasNonString(i)) {
                out.put(address, i);
                return;
              }
              Map<String, Object> attributes = new LinkedHashMap<>(i.attributes());
              Map<String, Object> triggers = new LinkedHashMap<>();
              ((Map<?, ?>) i.attributes().get("triggers"))
                  .forEach((k, v) -> triggers.put(String.valueOf(k), text(v)));
              attributes.put("triggers", triggers);
              out.put(
                  address,
                  new PriorInstance(
                      i.address(),
                      i.type(),
                      i.name(),
                      attributes,
                      i.dependencies(),
                      i.tainted(),
                      i.createBeforeDestroy(),
                      i.skipDestroy(),
                      i.sensitivePaths()));
            });
    return new PriorState(
        prior.serial(), prior.lineage(), out, prior.document(), prior.openedOutputs());
  }

  private static boolean hasNonString(PriorInstance i) {
    return i.attributes().get("triggers") instanceof Map<?, ?> m
        && m.values().stream().anyMatch(v -> v instanceof Number || v instanceof Boolean);
  }

  private static Object text(Object v) {
    if (v instanceof Number n) {
      return new BigDecimal(n.toString()).stripTrailingZeros().toPlainString();
    }
    return v instanceof Boolean b ? b.toString() : v;
  }
}
