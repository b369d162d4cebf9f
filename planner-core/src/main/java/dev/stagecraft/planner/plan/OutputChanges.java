package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.OutputDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Root module outputs of a plan: evaluated against the planned values, preconditions checked,
 * sensitive ones redacted (an output holding sensitive values must say {@code sensitive = true}).
 */
final class OutputChanges {
  private OutputChanges() {}

  /**
   * The output changes of a plan: configured outputs evaluated against the planned {@code objects}
   * and {@code localValues}, and a delete for every output only in state.
   */
  static List<OutputChange> plan(
      WalkScope walk,
      PriorState prior,
      PlanRequest request,
      Map<String, Value> objects,
      Map<String, Value> localValues,
      Diagnostics diagnostics) {
    ConfigModel model = walk.model();
    Map<String, Map<String, Object>> priorOutputs = prior.outputs();
    List<OutputChange> out = new ArrayList<>();
    Set<String> configured = new LinkedHashSet<>();
    if (!request.destroy()) {
      List<OutputDecl> outputs = new ArrayList<>(model.config().outputs());
      outputs.sort(Comparator.comparing(OutputDecl::name));
      EvalContext ctx = walk.context(objects, localValues, prior, null, null);
      for (OutputDecl o : outputs) {
        configured.add(o.name());
        for (BlockDecl pc : o.preconditions()) {
          model.checkConditions(
              Lifecycle.conditionsOf(pc), "precondition", "output." + o.name(), ctx, diagnostics);
        }
        EvalResult result = model.evaluateExpression(o.value(), ctx);
        diagnostics.addAll(result.diagnostics());
        if (result.hasErrors()) {
          continue;
        }
        Value v = result.value();
        if (v.containsSensitive() && !o.sensitive()) {
          diagnostics.error(
              "Output refers to sensitive values",
              "To reduce the risk of accidentally exporting sensitive data that was intended to"
                  + " be only internal, Stagecraft requires that any root module output"
                  + " containing sensitive data be explicitly marked as sensitive: add"
                  + " sensitive = true to output \""
                  + o.name()
                  + "\".",
              o.range());
          continue;
        }
        boolean sensitive = o.sensitive();
        Map<String, Object> before = priorOutputs.get(o.name());
        Object beforeValue = before == null ? null : before.get("value");
        boolean known = v.isWhollyKnown();
        Object afterValue = known && !v.isNull() ? v.unmarkDeep().toJava() : null;
        String action =
            before == null
                ? "create"
                : !known
                        || !Objects.equals(
                            Planner.normalize(beforeValue), Planner.normalize(afterValue))
                    ? "update"
                    : "no-op";
        boolean beforeSensitive = before != null && Boolean.TRUE.equals(before.get("sensitive"));
        out.add(
            new OutputChange(
                o.name(),
                List.of(action),
                sensitive || beforeSensitive ? null : beforeValue,
                sensitive ? null : afterValue,
                !known,
                sensitive || beforeSensitive));
      }
    }
    priorOutputs.forEach(
        (name, before) -> {
          if (!configured.contains(name)) {
            boolean sensitive = Boolean.TRUE.equals(before.get("sensitive"));
            out.add(
                new OutputChange(
                    name,
                    List.of("delete"),
                    sensitive ? null : before.get("value"),
                    null,
                    false,
                    sensitive));
          }
        });
    return out;
  }
}
