package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.DataDecl;
import dev.stagecraft.language.config.LocalDecl;
import dev.stagecraft.language.config.OutputDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.config.VariableValues;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.CallSiteValues;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.planner.graph.DependencyGraph;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A configuration analysed for planning: input variable values, lifecycle settings, {@code removed}
 * blocks, the dependency graph of resources and local values (from references, {@code depends_on}
 * and {@code replace_triggered_by}), its order, the effective {@code create_before_destroy} of
 * every resource, and expression evaluation against planned or applied values. Everything is
 * checked in one pass, so one plan reports every problem.
 *
 * <p>Built once per plan; the instance keys of each resource are recorded while planning expands
 * {@code count} and {@code for_each} ({@link #recordExpansion}), and read-only afterwards, when the
 * model is shared by the {@link dev.stagecraft.planner.apply.ApplyContext}.
 *
 * <p>While planning, impure functions ({@code timestamp()}, {@code uuid()}) evaluate to unknown, as
 * in Terraform; the apply context switches the model to apply ({@link #evaluateForApply}), where
 * they are known, one result per call site and instance. {@code plantimestamp()} is the instant the
 * model was made, while planning and applying alike.
 */
public final class ConfigModel {
  private static final Evaluator EVALUATOR = new Evaluator();
  static final String LOCAL_PREFIX = "local.";
  static final String DATA_PREFIX = "data.";
  private SimpleEvalContext baseContext;

  /** The plan's budget while it is planned; null after (each evaluation then has its own). */
  private EvalBudget budget;

  /** The (empty, never created) directory file functions see when planning on a server. */
  static final Path NO_FILES = Path.of("/nonexistent/stagecraft-uploaded-files");

  private final Configuration config;
  private final Map<String, ResourceDecl> resources = new LinkedHashMap<>();
  private final Map<String, ResourceDecl> disabled = new LinkedHashMap<>();
  private final Map<String, Lifecycle> lifecycles = new LinkedHashMap<>();
  private final Map<String, LocalDecl> locals = new LinkedHashMap<>();
  private final Map<String, DataDecl> dataSources = new LinkedHashMap<>();

  /** The {@code data} root (docs/planning.md "Remote state"), set before planning; or null. */
  private Value dataRoot;

  private final Map<String, RemovedBlock> removed = new LinkedHashMap<>();
  private final Map<String, Value> variables = new LinkedHashMap<>();
  private final Set<String> sensitiveValues = new LinkedHashSet<>();
  private final DependencyGraph graph = new DependencyGraph();
  private final ResourceValues resourceValues = new ResourceValues();
  private final Set<String> createBeforeDestroy = new LinkedHashSet<>();
  private final String workspace;
  private final Path baseDir;
  private final boolean confineFiles;
  private final Clock clock;
  private final Instant planTimestamp;

  /** The results of impure calls during the apply; null while planning (they are unknown). */
  private volatile CallSiteValues applyValues;

  private List<String> order = List.of();

  private ConfigModel(
      Configuration config, String workspace, Path baseDir, boolean confineFiles, Clock clock) {
    this.config = config;
    this.workspace = workspace;
    this.baseDir = baseDir;
    this.confineFiles = confineFiles || baseDir == null;
    this.clock = clock;
    this.planTimestamp = clock.instant();
  }

  static ConfigModel analyze(
      Configuration config, PlanRequest request, Diagnostics diagnostics, boolean validateOnly) {
    return analyze(config, request, diagnostics, validateOnly, Clock.systemUTC());
  }

  /**
   * @param clock the clock of {@code timestamp()} at apply and of the plan's timestamp ({@code
   *     plantimestamp()})
   */
  static ConfigModel analyze(
      Configuration config,
      PlanRequest request,
      Diagnostics diagnostics,
      boolean validateOnly,
      Clock clock) {
    ConfigModel model =
        new ConfigModel(
            config, request.workspace(), request.baseDir(), request.confineFiles(), clock);
    model.variables.putAll(
        InputVariables.resolve(
            config,
            request.variables(),
            request.hclVariables(),
            model.fileContext(),
            diagnostics,
            validateOnly,
            model.sensitiveValues));
    model.declareBlocks(diagnostics);
    model.declareRemovedBlocks(diagnostics);
    model.checkReferences(diagnostics);
    model.reportCycle(diagnostics);
    if (!diagnostics.hasErrors()) {
      model.order = model.graph.topologicalOrder();
      RemoteStates.checkDependencies(model, diagnostics);
      model.propagateCreateBeforeDestroy(diagnostics);
    }
    return model;
  }

  /** Resources (with their lifecycles; disabled ones apart), local values and data sources. */
  private void declareBlocks(Diagnostics diagnostics) {
    for (ResourceDecl r : config.resources()) {
      Lifecycle lifecycle = Lifecycle.parse(r.lifecycle(), ResourceKind.of(r.type()), diagnostics);
      lifecycles.put(r.address(), lifecycle);
      if (lifecycle.enabled()) {
        resources.put(r.address(), r);
        graph.addNode(r.address());
      } else {
        disabled.put(r.address(), r);
      }
    }
    for (LocalDecl l : config.locals()) {
      locals.put(l.name(), l);
      graph.addNode(LOCAL_PREFIX + l.name());
    }
    for (DataDecl ds : config.dataSources()) {
      dataSources.put(ds.address(), ds);
      graph.addNode(ds.address());
    }
  }

  /** {@code removed} blocks: each for something no longer declared, at most one per address. */
  private void declareRemovedBlocks(Diagnostics diagnostics) {
    for (BlockDecl b : config.removed()) {
      RemovedBlock rb = RemovedBlock.parse(b, diagnostics);
      if (rb == null) {
        continue;
      }
      boolean declared =
          Stream.concat(resources.keySet().stream(), disabled.keySet().stream())
              .anyMatch(rb::covers);
      if (declared) {
        diagnostics.error(
            rb.wholeModule()
                ? "Removed module still exists"
                : "Removed resource block still exists",
            "This removed block refers to "
                + rb.shown()
                + ", which is still declared in the configuration. Remove the "
                + (rb.wholeModule() ? "module call" : "resource block")
                + " to remove it, or remove this removed block to keep it.",
            rb.fromRange());
        continue;
      }
      if (removed.containsKey(rb.from())) {
        diagnostics.error(
            "Duplicate removed block",
            "Another removed block already refers to " + rb.shown() + ".",
            rb.fromRange());
        continue;
      }
      removed.put(rb.from(), rb);
      ReferenceChecks.checkDestroyTime(rb.provisioners(), rb.connection(), diagnostics);
    }
  }

  /**
   * Every reference, with Terraform's messages ({@link ReferenceChecks}); each adds a graph edge.
   */
  private void checkReferences(Diagnostics diagnostics) {
    ReferenceChecks references =
        new ReferenceChecks(config, resources, disabled, lifecycles, locals, graph);
    for (ResourceDecl r : config.resources()) {
      references.checkResource(r, diagnostics);
    }
    for (LocalDecl l : config.locals()) {
      references.checkPlain(LOCAL_PREFIX + l.name(), l.expr(), diagnostics);
    }
    for (OutputDecl o : config.outputs()) {
      references.checkPlain(null, o.value(), diagnostics);
    }
    // a check refers to what it checks, and nothing waits for it: no graph edges
    for (var check : config.checks()) {
      for (var a : check.asserts()) {
        references.checkPlain(null, a.condition(), diagnostics);
        references.checkPlain(null, a.errorMessage(), diagnostics);
      }
    }
    for (DataDecl ds : config.dataSources()) {
      ds.attributes()
          .values()
          .forEach(a -> references.checkPlain(ds.address(), a.expr(), diagnostics));
    }
  }

  private void reportCycle(Diagnostics diagnostics) {
    graph
        .findCycle()
        .ifPresent(
            cycle ->
                diagnostics.error(
                    "Cycle: " + String.join(", ", cycle.subList(0, cycle.size() - 1)),
                    "The blocks "
                        + String.join(" → ", cycle)
                        + " depend on each other, so none can be planned first. Remove one of"
                        + " the references, depends_on or replace_triggered_by entries that"
                        + " close the cycle.",
                    rangeOf(cycle.get(0))));
  }

  private SourceRange rangeOf(String node) {
    if (dataSources.containsKey(node)) {
      return dataSources.get(node).range();
    }
    if (node.startsWith(LOCAL_PREFIX)
        && locals.containsKey(node.substring(LOCAL_PREFIX.length()))) {
      return locals.get(node.substring(LOCAL_PREFIX.length())).range();
    }
    ResourceDecl r = resources.get(node);
    return r == null ? null : r.range();
  }

  /**
   * {@code create_before_destroy} propagates to everything a resource that has it depends on (seed
   * 001); it cannot be turned off there, so an explicit false on such a dependency is overridden
   * (with a warning).
   */
  private void propagateCreateBeforeDestroy(Diagnostics diagnostics) {
    for (ResourceDecl r : resources.values()) {
      if (lifecycles.get(r.address()).createBeforeDestroyConfigured()) {
        createBeforeDestroy.add(r.address());
        for (String dep : resourceDependencies(r.address())) {
          Lifecycle depLifecycle = lifecycles.get(dep);
          if (Boolean.FALSE.equals(depLifecycle.createBeforeDestroy())
              && createBeforeDestroy.add(dep)) {
            diagnostics.warning(
                "create_before_destroy cannot be turned off",
                dep
                    + " sets create_before_destroy = false, but "
                    + r.address()
                    + " depends on it and sets create_before_destroy = true, so it is enabled"
                    + " for "
                    + dep
                    + " too (turning it off would create a cycle in the graph).",
                depLifecycle.createBeforeDestroyRange());
          }
          createBeforeDestroy.add(dep);
        }
      }
    }
  }

  /** Adds every known string inside a sensitive value to {@code out}. */
  public static void collectSensitive(Value value, Set<String> out) {
    collect(value, false, out);
  }

  private static void collect(Value value, boolean marked, Set<String> out) {
    boolean sensitive = marked || value.isSensitive();
    switch (value) {
      case Value.ListValue l -> l.elements().forEach(e -> collect(e, sensitive, out));
      case Value.ObjectValue o -> o.attributes().values().forEach(e -> collect(e, sensitive, out));
      default -> {
        if (sensitive && value.isWhollyKnown() && !value.isNull()) {
          String text = value.unmarkDeep().asString();
          if (!text.isEmpty()) {
            out.add(text);
          }
        }
      }
    }
  }

  /** Resources and local values ({@code local.NAME}) in dependency order. */
  List<String> order() {
    return order;
  }

  static boolean isLocalNode(String node) {
    return node.startsWith(LOCAL_PREFIX);
  }

  /** A {@code data.TYPE.NAME} node (a remote state, read before planning). */
  static boolean isDataNode(String node) {
    return node.startsWith(DATA_PREFIX);
  }

  /** The data sources by node ({@code data.terraform_remote_state.NAME}). */
  Map<String, DataDecl> dataSources() {
    return dataSources;
  }

  /**
   * Sets the {@code data} root every later evaluation sees (the remote states' values, read before
   * planning and fixed for the plan and its apply).
   */
  void useDataRoot(Value root) {
    this.dataRoot = root;
    this.baseContext = null;
  }

  LocalDecl local(String node) {
    return locals.get(node.substring(LOCAL_PREFIX.length()));
  }

  ResourceDecl resource(String address) {
    return resources.get(address);
  }

  boolean hasResource(String address) {
    return resources.containsKey(address);
  }

  /** The declaration of a resource with {@code enabled = false}, or null. */
  ResourceDecl disabledResource(String address) {
    return disabled.get(address);
  }

  /** The lifecycle of a declared resource (enabled or not), or the default. */
  public Lifecycle lifecycle(String resourceAddress) {
    return lifecycles.getOrDefault(resourceAddress, Lifecycle.DEFAULT);
  }

  /** The removed block of a resource the configuration no longer declares, or of its module. */
  public Optional<RemovedBlock> removedBlock(String resourceAddress) {
    RemovedBlock exact = removed.get(resourceAddress);
    if (exact != null) {
      return Optional.of(exact);
    }
    return removed.values().stream().filter(r -> r.covers(resourceAddress)).findFirst();
  }

  Configuration config() {
    return config;
  }

  DependencyGraph graph() {
    return graph;
  }

  /** The effective {@code create_before_destroy} of a configured resource. */
  public boolean createBeforeDestroy(String resourceAddress) {
    return createBeforeDestroy.contains(resourceAddress);
  }

  /** Every resource this one depends on, directly or through others and local values. */
  List<String> resourceDependencies(String address) {
    return graph.transitiveDependenciesOf(address).stream()
        .filter(n -> !isLocalNode(n) && !isDataNode(n))
        .sorted()
        .toList();
  }

  /**
   * The resources this one depends on directly (looking through local values), as recorded in
   * state. Terraform records the transitive closure; the direct ones are enough to order destroys
   * in reverse, and keep state linear in size for long chains (docs/planning.md).
   */
  List<String> dependencies(String address) {
    Set<String> out = new TreeSet<>();
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> queue = new ArrayDeque<>(graph.dependenciesOf(address));
    while (!queue.isEmpty()) {
      String node = queue.poll();
      if (!seen.add(node) || isDataNode(node)) {
        continue; // a data source depends on no resource (RemoteStates.checkDependencies)
      }
      if (isLocalNode(node)) {
        queue.addAll(graph.dependenciesOf(node));
      } else {
        out.add(node);
      }
    }
    return List.copyOf(out);
  }

  public Set<String> sensitiveValues() {
    return sensitiveValues;
  }

  /**
   * Evaluations count against {@code budget} from now on (the plan's), or each against a budget of
   * its own when null (after planning: an approved plan's apply context evaluates much later).
   */
  void useBudget(EvalBudget budget) {
    this.budget = budget;
  }

  /**
   * From now on, expressions are evaluated to be applied: {@code timestamp()} and {@code uuid()}
   * are known, each call site giving one result per instance (or local value, or output) recorded
   * in {@code callSites}, so the value an instance is applied with, the one its provisioners see
   * and the one a local value has for every resource are each the same however often the apply
   * evaluates them.
   */
  public void evaluateForApply(CallSiteValues callSites) {
    this.applyValues = callSites;
  }

  /** Records the instances planning found for a resource (count / for_each expanded). */
  void recordExpansion(String resourceAddress, List<InstanceKey> keys) {
    resourceValues.recordExpansion(resourceAddress, keys);
  }

  /** The key of an instance planned from configuration, or the one written in its address. */
  public InstanceKey instanceKey(String address) {
    return resourceValues.instanceKey(address);
  }

  /** Forgets the cached value of a resource after one of its instances changed. */
  public void invalidateResourceValue(String resourceAddress) {
    resourceValues.invalidate(resourceAddress);
  }

  /**
   * An evaluation context where resource instances resolve to {@code objects} (planned or applied
   * values, by instance address), falling back to prior state and then to unknown; counted
   * resources are lists of instances and {@code for_each} resources maps. {@code count} and {@code
   * each} come from {@code key}, {@code self} from the given value (when not null).
   */
  SimpleEvalContext context(
      Map<String, Value> objects,
      Map<String, Value> localValues,
      PriorState prior,
      Value self,
      InstanceKey key) {
    return context(objects, localValues, prior, self, key, null);
  }

  /**
   * Like {@link #context(Map, Map, PriorState, Value, InstanceKey)}, but with only the resources
   * that {@code forNode} (a resource address or {@code local.NAME}) refers to: every reference adds
   * a graph edge, so these are all it can resolve. Keeps planning linear in the number of resources
   * instead of building every resource's value for every evaluation.
   */
  SimpleEvalContext context(
      Map<String, Value> objects,
      Map<String, Value> localValues,
      PriorState prior,
      Value self,
      InstanceKey key,
      String forNode) {
    CallSiteValues callSites = applyValues;
    SimpleEvalContext ctx =
        baseContext()
            .withBudget(budget)
            .withImpureFunctionsUnknown(callSites == null)
            .withCallSiteValues(
                callSites,
                (forNode == null ? "" : forNode)
                    + (key == null || key.key() == null ? "" : key.suffix()));
    if (!localValues.isEmpty()) {
      ctx = ctx.withRoot("local", Value.object(localValues));
    }
    Map<String, Map<String, Value>> byType = new LinkedHashMap<>();
    Iterable<String> relevant =
        forNode == null ? resources.keySet() : graph.dependenciesOf(forNode);
    for (String address : relevant) {
      ResourceDecl r = resources.get(address);
      if (r != null) {
        byType
            .computeIfAbsent(r.type(), t -> new LinkedHashMap<>())
            .put(r.name(), resourceValues.of(r, objects, prior));
      }
    }
    for (ResourceDecl r : disabled.values()) {
      byType.computeIfAbsent(r.type(), t -> new LinkedHashMap<>()).put(r.name(), Value.NULL);
    }
    for (var type : byType.entrySet()) {
      ctx = ctx.withRoot(type.getKey(), Value.object(type.getValue()));
    }
    ctx = withKey(ctx, key);
    if (self != null) {
      ctx = ctx.withRoot("self", self);
    }
    return ctx;
  }

  /** Variables, {@code path.*}, {@code terraform.workspace}: the same for every evaluation. */
  private SimpleEvalContext baseContext() {
    if (baseContext == null) {
      SimpleEvalContext ctx = fileContext();
      if (!variables.isEmpty()) {
        ctx = ctx.withRoot("var", Value.object(variables));
      }
      if (dataRoot != null) {
        ctx = ctx.withRoot("data", dataRoot);
      }
      baseContext = ctx;
    }
    return baseContext;
  }

  /**
   * {@code path.*}, {@code terraform.workspace} and the file functions' directory, for every
   * evaluation, variable validations included.
   */
  private SimpleEvalContext fileContext() {
    // On a server, file functions are confined: to the private directory holding the uploaded
    // files, or, without one, to a directory that holds no files, so a tenant's configuration
    // can never read the service's own files. path.* then show "." so the server's directory
    // never appears in plans (and the plan digest does not depend on where it was planned).
    String shown = confineFiles ? "." : baseDir.toString();
    return SimpleEvalContext.empty()
        .withRoot(
            "path",
            Value.object(
                Map.of(
                    "module", Value.string(shown),
                    "root", Value.string(shown),
                    "cwd", Value.string(shown))))
        .withRoot("terraform", Value.object(Map.of("workspace", Value.string(workspace))))
        .withBaseDirectory(baseDir == null ? NO_FILES : baseDir)
        .withFileAccessConfined(confineFiles)
        .withClock(clock)
        .withPlanTimestamp(planTimestamp);
  }

  private static SimpleEvalContext withKey(SimpleEvalContext ctx, InstanceKey key) {
    if (key == null || key.key() == null) {
      return ctx;
    }
    if (key.key() instanceof Integer i) {
      return ctx.withRoot("count", Value.object(Map.of("index", Value.number(i))));
    }
    Value value = key.eachValue() == null ? Value.string((String) key.key()) : key.eachValue();
    return ctx.withRoot(
        "each", Value.object(Map.of("key", Value.string((String) key.key()), "value", value)));
  }

  /**
   * The context of destroy-time provisioners: only {@code self}, {@code count.index} and {@code
   * each.key}, because the rest of the configuration may be gone when they run.
   */
  public EvalContext destroyContext(Value self, InstanceKey key) {
    SimpleEvalContext ctx =
        baseContext()
            .withBudget(budget)
            .withImpureFunctionsUnknown(applyValues == null)
            .withRoot("self", self);
    if (key != null && key.key() instanceof String s) {
      ctx = ctx.withRoot("each", Value.object(Map.of("key", Value.string(s))));
      return ctx;
    }
    return withKey(ctx, key);
  }

  /** Evaluates every local value in dependency order against the given objects. */
  public Map<String, Value> evaluateLocals(
      Map<String, Value> objects, PriorState prior, Diagnostics diagnostics) {
    Map<String, Value> values = new LinkedHashMap<>();
    for (String node : order) {
      if (isLocalNode(node)) {
        LocalDecl l = local(node);
        values.put(
            l.name(),
            evaluateLocal(l, context(objects, values, prior, null, null, node), diagnostics));
      }
    }
    return values;
  }

  /**
   * The value of a local value; of a called module's input variable ({@link
   * LocalDecl#moduleVariable()}), the call's argument (or the default) converted and checked as the
   * variable says.
   */
  Value evaluateLocal(LocalDecl l, EvalContext ctx, Diagnostics diagnostics) {
    if (l.moduleVariable() == null) {
      EvalResult result = EVALUATOR.evaluate(l.expr(), ctx);
      diagnostics.addAll(result.diagnostics());
      return result.value();
    }
    Optional<Value> given = Optional.empty();
    if (l.given()) {
      EvalResult result = EVALUATOR.evaluate(l.expr(), ctx);
      diagnostics.addAll(result.diagnostics());
      if (result.hasErrors()) {
        return Value.unknown();
      }
      given = Optional.of(result.value());
    }
    Value value =
        VariableValues.resolveModuleInput(l.moduleVariable(), given, fileContext(), diagnostics);
    if (l.moduleVariable().sensitive()) {
      collectSensitive(value, sensitiveValues);
    }
    return value;
  }

  /** Evaluates the resource type's arguments; null when any failed (diagnostics added). */
  Map<String, Value> evaluateAttributes(ResourceDecl r, EvalContext ctx, Diagnostics diagnostics) {
    return ResourceArguments.evaluate(r, ctx, diagnostics);
  }

  /** The declaration of a configured resource, or null. */
  public ResourceDecl resourceDecl(String address) {
    return resources.get(InstanceKey.resourceOf(address));
  }

  /** See {@link #context}; for the instance at {@code address}. */
  public EvalContext contextFor(
      Map<String, Value> objects, PriorState prior, Value self, String address) {
    Diagnostics ignored = new Diagnostics();
    return context(
        objects,
        evaluateLocals(objects, prior, ignored),
        prior,
        self,
        instanceKey(address),
        resources.containsKey(InstanceKey.resourceOf(address))
            ? InstanceKey.resourceOf(address)
            : null);
  }

  /**
   * Evaluates the configuration's {@code check} blocks after a successful apply, against the
   * applied instances ({@code objects}, by instance address; the others as the prior state holds
   * them): every result is a warning ({@link CheckAssertions}).
   */
  public Diagnostics checkAfterApply(Map<String, Value> objects, PriorState prior) {
    Diagnostics diagnostics = new Diagnostics();
    if (config.checks().isEmpty()) {
      return diagnostics;
    }
    Map<String, Value> localValues = evaluateLocals(objects, prior, new Diagnostics());
    CheckAssertions.evaluate(
        config.checks(), context(objects, localValues, prior, null, null), true, diagnostics);
    return diagnostics;
  }

  /**
   * Evaluates the root outputs after a successful apply, against the applied instances ({@code
   * objects}, by instance address; the others as the prior state holds them), as {@link
   * #checkAfterApply} does for checks: what the run records in state (docs/adr/0064).
   */
  public AppliedOutputs outputsAfterApply(Map<String, Value> objects, PriorState prior) {
    Diagnostics diagnostics = new Diagnostics();
    if (config.outputs().isEmpty()) {
      return new AppliedOutputs(Map.of(), diagnostics);
    }
    Map<String, Value> localValues = evaluateLocals(objects, prior, new Diagnostics());
    return AppliedOutputs.evaluate(
        config.outputs(), context(objects, localValues, prior, null, null), this, diagnostics);
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

  /**
   * Checks conditions ({@link Conditions#check}); a false one adds an error with its {@code
   * error_message} and the address, an unknown one is skipped (and reported by the return value).
   *
   * @return true when every condition was known
   */
  public boolean checkConditions(
      List<Lifecycle.Condition> conditions,
      String kind,
      String address,
      EvalContext ctx,
      Diagnostics diagnostics) {
    return Conditions.check(conditions, kind, address, ctx, diagnostics);
  }
}
