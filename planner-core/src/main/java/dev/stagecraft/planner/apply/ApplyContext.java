package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.plan.ConfigModel;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Resolves planned actions at dispatch time, when the values that were unknown at plan time (ids of
 * resources created earlier in the run) are known: final attributes with the new {@code id}, and
 * provisioner steps with every expression evaluated. Immutable; safe to share.
 */
public final class ApplyContext {
  private final ConfigModel model;
  private final PriorState prior;
  private final Map<String, String> sources;

  public ApplyContext(ConfigModel model, PriorState prior, Map<String, String> sources) {
    this.model = model;
    this.prior = prior;
    this.sources = sources;
  }

  /**
   * Resolves {@code action}.
   *
   * @param applied final attributes of the instances already applied in this run, by address
   * @param ids source of new resource ids
   */
  public ActionResolution resolve(
      PlannedAction action, Map<String, Map<String, Object>> applied, Supplier<String> ids) {
    Diagnostics diagnostics = new Diagnostics();
    List<String> sensitive = new ArrayList<>(model.sensitiveValues());
    ResourceDecl resource = model.resourceDecl(action.address());
    if (!action.action().creates()
        && action.action() != dev.stagecraft.planner.plan.ActionType.UPDATE) {
      // delete and forget: the instance's recorded attributes; destroy-time provisioners only
      // when the resource is still configured
      List<ProvisionerStep> steps =
          resource == null
              ? List.of()
              : steps(
                  resource, "destroy", selfOf(action.before()), applied, diagnostics, sensitive);
      return new ActionResolution(
          action.before() == null ? Map.of() : action.before(),
          steps,
          List.copyOf(new LinkedHashSet<>(sensitive)),
          diagnostics,
          sources);
    }
    Map<String, Value> objects = objects(applied);
    EvalContext ctx = model.contextFor(objects, prior, null);
    Map<String, Value> evaluated = model.evaluateArguments(resource, ctx, diagnostics);
    if (evaluated == null) {
      return new ActionResolution(Map.of(), List.of(), sensitive, diagnostics, sources);
    }
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put(
        "id",
        action.action().creates()
            ? ids.get()
            : action.after() == null ? null : action.after().get("id"));
    evaluated.forEach(
        (name, value) -> {
          if (!value.isWhollyKnown()) {
            diagnostics.error(
                "Value not known at apply",
                "The argument \""
                    + name
                    + "\" of "
                    + action.address()
                    + " depends on a value that is still unknown when the resource is applied.",
                null);
          } else {
            if (value.containsSensitive()) {
              collectSensitive(value, sensitive);
            }
            attributes.put(name, value.isNull() ? null : value.unmarkDeep().toJava());
          }
        });
    model.finishAttributes(resource, attributes);
    List<ProvisionerStep> steps =
        action.action().creates()
            ? steps(resource, "create", Value.of(attributes), applied, diagnostics, sensitive)
            : List.of();
    return new ActionResolution(
        attributes, steps, List.copyOf(new LinkedHashSet<>(sensitive)), diagnostics, sources);
  }

  private static Value selfOf(Map<String, Object> attributes) {
    return Value.of(attributes == null ? Map.of() : attributes);
  }

  private Map<String, Value> objects(Map<String, Map<String, Object>> applied) {
    Map<String, Value> objects = new LinkedHashMap<>();
    applied.forEach((address, attributes) -> objects.put(address, Value.of(attributes)));
    return objects;
  }

  private List<ProvisionerStep> steps(
      ResourceDecl resource,
      String when,
      Value self,
      Map<String, Map<String, Object>> applied,
      Diagnostics diagnostics,
      List<String> sensitive) {
    EvalContext ctx = model.contextFor(objects(applied), prior, self);
    List<ProvisionerStep> steps = new ArrayList<>();
    for (ProvisionerDecl p : resource.provisioners()) {
      if (!p.when().equals(when)) {
        continue;
      }
      Map<String, Value> args = new LinkedHashMap<>();
      boolean stepSensitive = false;
      for (Map.Entry<String, AttributeDecl> a : p.attributes().entrySet()) {
        EvalResult result = model.evaluateExpression(a.getValue().expr(), ctx);
        diagnostics.addAll(result.diagnostics());
        Value value = result.value();
        if (value.containsSensitive()) {
          stepSensitive = true;
          collectSensitive(value, sensitive);
        }
        args.put(a.getKey(), value.unmarkDeep());
      }
      if (diagnostics.hasErrors()) {
        continue;
      }
      steps.add(
          new ProvisionerStep(
              p.type(),
              p.when(),
              p.onFailure(),
              string(args.get("command")),
              stringList(args.get("interpreter")),
              stringMap(args.get("environment")),
              string(args.get("working_dir")),
              args.containsKey("quiet") && "true".equals(string(args.get("quiet"))),
              stepSensitive));
    }
    return steps;
  }

  private static void collectSensitive(Value value, List<String> out) {
    if (value.isSensitive() && value.isWhollyKnown() && !value.isNull()) {
      String text = value.unmarkDeep().asString();
      if (!text.isEmpty()) {
        out.add(text);
      }
    }
    switch (value) {
      case Value.ListValue l -> l.elements().forEach(e -> collectSensitive(e, out));
      case Value.ObjectValue o -> o.attributes().values().forEach(e -> collectSensitive(e, out));
      default -> {}
    }
  }

  private static String string(Value v) {
    return v == null || v.isNull() ? null : v.asString();
  }

  private static List<String> stringList(Value v) {
    if (v instanceof Value.ListValue l) {
      return l.elements().stream().map(Value::asString).toList();
    }
    return List.of();
  }

  private static Map<String, String> stringMap(Value v) {
    Map<String, String> out = new LinkedHashMap<>();
    if (v instanceof Value.ObjectValue o) {
      o.attributes().forEach((k, e) -> out.put(k, e.isNull() ? "" : e.asString()));
    }
    return out;
  }

  /** For tests and callers that must know which values get redacted. */
  public Set<String> sensitiveValues() {
    return model.sensitiveValues();
  }
}
