package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.DataDecl;
import dev.stagecraft.language.config.LocalDecl;
import dev.stagecraft.language.config.OutputDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
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
import java.util.Collection;
import java.util.Collections;
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
 * <p>Built once per plan and not changed by walking it: what a walk evaluates with (the {@code
 * data} root, the plan's budget, the instance keys planning found, whether impure functions are
 * known) is its {@link WalkScope}, one while planning and one per apply context. The one thing a
 * walk still adds to is {@link #sensitiveValues()} (remote states' sensitive outputs, sensitive
 * module inputs), the set of texts redacted from the plan and the apply. {@code plantimestamp()} is
 * the instant the model was made, while planning and applying alike.
 */
public final class ConfigModel {
  private static final Evaluator EVALUATOR = new Evaluator();
  static final String LOCAL_PREFIX = "local.";
  static final String DATA_PREFIX = "data.";

  /** The (empty, never created) directory file functions see when planning on a server. */
  static final Path NO_FILES = Path.of("/nonexistent/stagecraft-uploaded-files");

  private final Configuration config;
  private final Map<String, ResourceDecl> resources = new LinkedHashMap<>();
  private final Map<String, ResourceDecl> disabled = new LinkedHashMap<>();
  private final Map<String, Lifecycle> lifecycles = new LinkedHashMap<>();
  private final Map<String, LocalDecl> locals = new LinkedHashMap<>();
  private final Map<String, DataDecl> dataSources = new LinkedHashMap<>();

  private final Map<String, RemovedBlock> removed = new LinkedHashMap<>();
  private final Map<String, Value> variables = new LinkedHashMap<>();
  private final Set<String> sensitiveValues = new LinkedHashSet<>();
  private final DependencyGraph graph = new DependencyGraph();
  private final Set<String> createBeforeDestroy = new LinkedHashSet<>();
  private final String workspace;
  private final Path baseDir;
  private final boolean confineFiles;
  private final Clock clock;
  private final Instant planTimestamp;

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
            request.sensitiveVariables(),
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

  LocalDecl local(String node) {
    return locals.get(node.substring(LOCAL_PREFIX.length()));
  }

  /** The enabled resources by address. */
  Map<String, ResourceDecl> resources() {
    return Collections.unmodifiableMap(resources);
  }

  /** The resources with {@code enabled = false}. */
  Collection<ResourceDecl> disabledResources() {
    return Collections.unmodifiableCollection(disabled.values());
  }

  /** The input variables' values by name. */
  Map<String, Value> variables() {
    return Collections.unmodifiableMap(variables);
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
   * {@code path.*}, {@code terraform.workspace} and the file functions' directory, for every
   * evaluation, variable validations included.
   */
  SimpleEvalContext fileContext() {
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

  /** Evaluates the resource type's arguments; null when any failed (diagnostics added). */
  Map<String, Value> evaluateAttributes(ResourceDecl r, EvalContext ctx, Diagnostics diagnostics) {
    return ResourceArguments.evaluate(r, ctx, diagnostics);
  }

  /** The declaration of a configured resource, or null. */
  public ResourceDecl resourceDecl(String address) {
    return resources.get(InstanceKey.resourceOf(address));
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
