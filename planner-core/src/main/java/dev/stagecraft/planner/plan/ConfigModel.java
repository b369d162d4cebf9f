package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.config.VariableDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import dev.stagecraft.planner.graph.DependencyGraph;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A configuration analysed for planning: input variable values, the resource dependency graph (from
 * references and {@code depends_on}), its order, and expression evaluation against planned or
 * applied values. Built once per plan; immutable afterwards.
 */
public final class ConfigModel {
  private static final Evaluator EVALUATOR = new Evaluator();

  private final Configuration config;
  private final Map<String, ResourceDecl> resources = new LinkedHashMap<>();
  private final Map<String, Value> variables = new LinkedHashMap<>();
  private final Set<String> sensitiveValues = new LinkedHashSet<>();
  private final DependencyGraph graph = new DependencyGraph();
  private final String workspace;
  private final Path baseDir;
  private List<String> order = List.of();

  private ConfigModel(Configuration config, String workspace, Path baseDir) {
    this.config = config;
    this.workspace = workspace;
    this.baseDir = baseDir;
  }

  static ConfigModel analyze(
      Configuration config, PlanRequest request, Diagnostics diagnostics, boolean validateOnly) {
    ConfigModel model = new ConfigModel(config, request.workspace(), request.baseDir());
    model.resolveVariables(request.variables(), diagnostics, validateOnly);
    for (ResourceDecl r : config.resources()) {
      model.resources.put(r.address(), r);
      model.graph.addNode(r.address());
    }
    for (ResourceDecl r : config.resources()) {
      model.checkReferences(r, diagnostics);
    }
    model
        .graph
        .findCycle()
        .ifPresent(
            cycle ->
                diagnostics.error(
                    "Cycle: " + String.join(", ", cycle.subList(0, cycle.size() - 1)),
                    "The resources "
                        + String.join(" → ", cycle)
                        + " depend on each other, so none can be planned first. Remove one of"
                        + " the references or depends_on entries that close the cycle.",
                    model.resources.get(cycle.get(0)).range()));
    if (!diagnostics.hasErrors()) {
      model.order = model.graph.topologicalOrder();
    }
    return model;
  }

  private void resolveVariables(
      Map<String, String> given, Diagnostics diagnostics, boolean validateOnly) {
    for (String name : given.keySet()) {
      if (!config.variables().containsKey(name)) {
        diagnostics.error(
            "Value for undeclared variable",
            "A variable named \""
                + name
                + "\" was assigned a value, but the configuration does not declare it. Declare it"
                + " with a variable \""
                + name
                + "\" block, or remove the -var option.",
            null);
      }
    }
    for (VariableDecl v : config.variables().values()) {
      Value value;
      if (given.containsKey(v.name())) {
        value = Value.string(given.get(v.name()));
      } else if (v.defaultValue().isPresent()) {
        EvalResult result = EVALUATOR.evaluate(v.defaultValue().get(), SimpleEvalContext.empty());
        diagnostics.addAll(result.diagnostics());
        value = result.value();
      } else if (validateOnly) {
        // validate checks the configuration, not the values it will be given
        value = Value.unknown();
      } else {
        diagnostics.error(
            "No value for required variable",
            "The root module input variable \""
                + v.name()
                + "\" is not set, and has no default value. Use a -var or -var-file command line"
                + " argument to provide a value for this variable.",
            v.range());
        continue;
      }
      if (v.sensitive()) {
        value = value.mark(true);
        if (value.isWhollyKnown() && !value.isNull()) {
          sensitiveValues.add(value.unmarkDeep().asString());
        }
      }
      variables.put(v.name(), value);
    }
  }

  private void checkReferences(ResourceDecl r, Diagnostics diagnostics) {
    for (Traversal t : referencesOf(r)) {
      checkReference(r, t, diagnostics, false);
    }
    for (Traversal t : r.dependsOn()) {
      checkReference(r, t, diagnostics, true);
    }
  }

  private void checkReference(
      ResourceDecl from, Traversal t, Diagnostics diagnostics, boolean explicit) {
    if (t.variableName().isPresent()) {
      String name = t.variableName().get();
      if (!config.variables().containsKey(name)) {
        diagnostics.error(
            "Reference to undeclared input variable",
            "An input variable with the name \""
                + name
                + "\" has not been declared. This variable can be declared with a variable \""
                + name
                + "\" {} block.",
            t.range());
      }
      return;
    }
    if (t.isResourceReference()) {
      String target = t.resourceAddress().orElseThrow();
      if (!resources.containsKey(target)) {
        diagnostics.error(
            "Reference to undeclared resource",
            "A managed resource \""
                + t.root()
                + "\" \""
                + t.firstAttribute().orElse("")
                + "\" has not been declared in the root module.",
            t.range());
        return;
      }
      if (target.equals(from.address())) {
        diagnostics.error(
            "Self-referential block",
            "Configuration for "
                + target
                + " may not refer to itself. Inside provisioner and connection blocks use"
                + " self.ATTRIBUTE instead.",
            t.range());
        return;
      }
      graph.addEdge(from.address(), target);
      return;
    }
    if (explicit) {
      diagnostics.error(
          "Invalid depends_on reference",
          "depends_on may only list resources, such as stateful_provisioning.name.",
          t.range());
    }
  }

  /** Every reference in a resource's arguments, provisioners and connections. */
  static List<Traversal> referencesOf(ResourceDecl r) {
    List<Traversal> out = new ArrayList<>();
    r.attributes().values().forEach(a -> out.addAll(a.expr().traversals()));
    for (ProvisionerDecl p : r.provisioners()) {
      p.attributes().values().forEach(a -> out.addAll(a.expr().traversals()));
      p.connection()
          .ifPresent(c -> c.attributes().values().forEach(a -> out.addAll(a.expr().traversals())));
    }
    r.connection()
        .ifPresent(c -> c.attributes().values().forEach(a -> out.addAll(a.expr().traversals())));
    return out.stream().filter(t -> !"self".equals(t.root())).toList();
  }

  List<String> order() {
    return order;
  }

  ResourceDecl resource(String address) {
    return resources.get(address);
  }

  boolean hasResource(String address) {
    return resources.containsKey(address);
  }

  DependencyGraph graph() {
    return graph;
  }

  /** Every resource this one depends on, directly or not, as recorded in state. */
  List<String> dependencies(String address) {
    return graph.transitiveDependenciesOf(address).stream().sorted().toList();
  }

  public Set<String> sensitiveValues() {
    return sensitiveValues;
  }

  /**
   * An evaluation context where resources resolve to {@code objects} (planned or applied values),
   * falling back to prior state, and {@code self} to the given value.
   */
  EvalContext context(Map<String, Value> objects, PriorState prior, Value self) {
    SimpleEvalContext ctx = SimpleEvalContext.empty();
    for (var v : variables.entrySet()) {
      ctx = ctx.withVariable(v.getKey(), v.getValue());
    }
    for (ResourceDecl r : resources.values()) {
      Value value = objects.get(r.address());
      if (value == null) {
        value =
            prior.instance(r.address()).map(i -> Value.of(i.attributes())).orElse(Value.unknown());
      }
      ctx = ctx.withAttribute(r.type(), r.name(), value);
    }
    Path dir = baseDir == null ? Path.of(".") : baseDir;
    ctx =
        ctx.withRoot(
                "path",
                Value.object(
                    Map.of(
                        "module", Value.string(dir.toString()),
                        "root", Value.string(dir.toString()),
                        "cwd", Value.string(dir.toString()))))
            .withRoot("terraform", Value.object(Map.of("workspace", Value.string(workspace))))
            .withBaseDirectory(dir);
    if (self != null) {
      ctx = ctx.withRoot("self", self);
    }
    return ctx;
  }

  /** Evaluates the resource type's arguments; null when any failed (diagnostics added). */
  Map<String, Value> evaluateAttributes(ResourceDecl r, EvalContext ctx, Diagnostics diagnostics) {
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
      out.put(name, result.value());
    }
    return ok ? out : null;
  }

  /** The declaration of a configured resource, or null. */
  public ResourceDecl resourceDecl(String address) {
    return resources.get(address);
  }

  /** See {@link #context}. */
  public EvalContext contextFor(Map<String, Value> objects, PriorState prior, Value self) {
    return context(objects, prior, self);
  }

  /** See {@link #evaluateAttributes}. */
  public Map<String, Value> evaluateArguments(
      ResourceDecl r, EvalContext ctx, Diagnostics diagnostics) {
    return evaluateAttributes(r, ctx, diagnostics);
  }

  public EvalResult evaluateExpression(Expression expression, EvalContext ctx) {
    return EVALUATOR.evaluate(expression, ctx);
  }

  /** Computed attributes that follow from the others ({@code terraform_data.output}). */
  public void finishAttributes(ResourceDecl r, Map<String, Object> attributes) {
    ResourceKind.of(r.type()).mirrorOnUpdate(attributes);
  }
}
