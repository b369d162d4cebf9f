package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.Value;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A resource instance's arguments evaluated as its type defines them ({@link ResourceKind}):
 * missing required ones reported, absent optional ones null, {@code null_resource} triggers made a
 * map of strings ({@link NullResourceTriggers}).
 */
final class ResourceArguments {
  private static final Evaluator EVALUATOR = new Evaluator();

  private ResourceArguments() {}

  /** Evaluates the resource type's arguments; null when any failed (diagnostics added). */
  static Map<String, Value> evaluate(ResourceDecl r, EvalContext ctx, Diagnostics diagnostics) {
    ResourceKind kind = ResourceKind.of(r.type());
    Map<String, Value> out = new LinkedHashMap<>();
    boolean ok = true;
    for (String name : kind.arguments()) {
      AttributeDecl attribute = r.attributes().get(name);
      if (attribute == null) {
        if (kind.required().contains(name)) {
          diagnostics.error(
              "Missing required argument",
              "The argument \"" + name + "\" is required, but no definition was found.",
              r.range());
          ok = false;
        }
        out.put(name, Value.NULL);
        continue;
      }
      EvalResult result = EVALUATOR.evaluate(attribute.expr(), ctx);
      diagnostics.addAll(result.diagnostics());
      ok &= !result.hasErrors();
      Value value = result.value();
      if (kind == ResourceKind.NULL_RESOURCE && !result.hasErrors()) {
        Diagnostics conversion = new Diagnostics();
        value = NullResourceTriggers.convert(value, attribute.expr().range(), conversion);
        diagnostics.addAll(conversion);
        ok &= !conversion.hasErrors();
      }
      out.put(name, value);
    }
    return ok ? out : null;
  }
}
