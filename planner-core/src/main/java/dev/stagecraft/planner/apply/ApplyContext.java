package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.plan.ActionType;
import dev.stagecraft.planner.plan.AppliedOutputs;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.ConfigModel;
import dev.stagecraft.planner.plan.IgnoreChanges;
import dev.stagecraft.planner.plan.InstanceKey;
import dev.stagecraft.planner.plan.Lifecycle;
import dev.stagecraft.planner.plan.ModuleAddresses;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.PriorInstance;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.plan.RemovedBlock;
import dev.stagecraft.planner.plan.WalkScope;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Resolves planned actions at dispatch time, when the values that were unknown at plan time (ids of
 * resources created earlier in the run) are known: final attributes with the new {@code id}, and
 * provisioner steps with every expression evaluated ({@code remote-exec} and {@code file} steps
 * complete with their SSH connection and the files they name, read relative to the configuration
 * directory: see {@link StepResolver}). Also checks the conditions that could not be decided at
 * plan time: preconditions (in {@link #resolve}) and postconditions ({@link #checkPostconditions},
 * after the instance is applied). Safe to share: its only mutable state is the record of {@code
 * timestamp()} and {@code uuid()} results of this apply (thread-safe). Evaluates {@code
 * timestamp()} and {@code uuid()}, unknown at plan, to one value per call site and instance ({@link
 * CallSiteValues}): the value an instance is applied with (and stored in state) is the one its
 * provisioners see through {@code self} or a local value.
 */
public final class ApplyContext {
  private final ConfigModel model;
  private final WalkScope walk;
  private final PriorState prior;
  private final Map<String, String> sources;
  private final Map<String, Value> plannedValues;
  private final WorkspaceEnvironment environment;

  /** The text of every value the prior state holds sensitive (opened sealed values included). */
  private final Set<String> priorSecrets;

  /**
   * @param planned the walk that planned (its instance keys); this context continues from it
   *     ({@link WalkScope#forApply})
   * @param plannedValues the value of each planned instance (instance address → value) as other
   *     expressions saw it at plan time: applied attributes are plain data, and get its marks back
   *     when expressions read them
   */
  public ApplyContext(
      WalkScope planned,
      PriorState prior,
      Map<String, String> sources,
      Map<String, Value> plannedValues) {
    this(planned, prior, sources, plannedValues, Map.of(), Set.of());
  }

  /**
   * As {@link #ApplyContext(WalkScope, PriorState, Map, Map)}, with the workspace's environment
   * variables for every {@code local-exec} step ({@code sensitiveEnvironment}: the names of the
   * secret ones, see {@link WorkspaceEnvironment}).
   */
  public ApplyContext(
      WalkScope planned,
      PriorState prior,
      Map<String, String> sources,
      Map<String, Value> plannedValues,
      Map<String, String> environment,
      Set<String> sensitiveEnvironment) {
    // timestamp() and uuid(), unknown at plan, are known from here on: one result per call site
    // and instance for this apply
    this.walk = planned.forApply();
    this.model = walk.model();
    this.prior = prior;
    this.sources = sources;
    this.plannedValues = Map.copyOf(plannedValues);
    this.environment = new WorkspaceEnvironment(environment, sensitiveEnvironment);
    Set<String> secrets = new LinkedHashSet<>();
    prior.instances().values().stream()
        .filter(i -> !i.sensitivePaths().isEmpty())
        .forEach(i -> ConfigModel.collectSensitive(i.value(), secrets));
    this.priorSecrets = Set.copyOf(secrets);
  }

  /**
   * Resolves {@code action}.
   *
   * <ul>
   *   <li>delete: the recorded attributes, and the destroy-time provisioners of the resource (when
   *       still configured, e.g. a shrunk count) or of its {@code removed} block, with {@code self}
   *       = the recorded attributes;
   *   <li>forget: the recorded attributes, no steps;
   *   <li>create, update and the replaces: the evaluated attributes; create-time steps for
   *       everything that creates; a destroy-then-create replace runs the destroy-time steps (self
   *       = the old object) first. Create-then-delete and forget-then-create do not run
   *       destroy-time provisioners (seed 001/002).
   * </ul>
   *
   * @param applied final attributes of the instances already applied in this run, by instance
   *     address
   * @param ids source of new resource ids
   */
  public ActionResolution resolve(
      PlannedAction action, Map<String, Map<String, Object>> applied, Supplier<String> ids) {
    // the model names instances in modules as the flattened configuration does
    action = ModuleAddresses.internal(action);
    Diagnostics diagnostics = new Diagnostics();
    Set<String> sensitive = new LinkedHashSet<>(model.sensitiveValues());
    List<Map<String, Object>> connections = new ArrayList<>();
    ResourceDecl resource = model.resourceDecl(action.address());
    InstanceKey key = walk.instanceKey(action.address());
    // a move without another change keeps the object as the state holds it: no steps
    if (action.action() == ActionType.DELETE
        || action.action() == ActionType.FORGET
        || action.action() == ActionType.NO_OP) {
      return withoutNewObject(action, key, diagnostics, sensitive, connections);
    }
    if (resource == null) {
      diagnostics.error(
          "Resource not in configuration",
          action.address() + " is not in the configuration this plan was made from.",
          null);
      return new ActionResolution(
          Map.of(), List.of(), List.copyOf(sensitive), diagnostics, sources);
    }
    Map<String, Value> objects = objects(applied);
    EvalContext ctx = walk.contextFor(objects, prior, null, action.address());
    Map<String, Value> evaluated = model.evaluateArguments(resource, ctx, diagnostics);
    if (evaluated == null) {
      return new ActionResolution(
          Map.of(), List.of(), List.copyOf(sensitive), diagnostics, sources);
    }
    Lifecycle lifecycle = model.lifecycle(resource.address());
    checkPreconditions(action, lifecycle, ctx, diagnostics);
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put(
        "id",
        action.action().creates()
            ? ids.get()
            : action.after() == null ? null : action.after().get("id"));
    Set<String> unknown = new LinkedHashSet<>();
    List<List<Object>> sensitivePaths = new ArrayList<>();
    collectKnown(evaluated, attributes, unknown, sensitive);
    // after collecting every sensitive string: a string derived from one without its mark counts
    evaluated.forEach(
        (name, value) ->
            sensitivePaths.addAll(AttributeSealing.sensitivePaths(name, value, sensitive)));
    if (action.action() == ActionType.UPDATE) {
      ignoreChanges(action, lifecycle, attributes, unknown);
    }
    reportUnknown(action, unknown, diagnostics);
    model.finishAttributes(resource, attributes);
    if ("terraform_data".equals(resource.type())) {
      sealOutputWhereInputIs(sensitivePaths);
    }
    List<ProvisionerStep> steps = new ArrayList<>();
    if (action.action() == ActionType.DELETE_THEN_CREATE) {
      steps.addAll(destroySteps(action, key, diagnostics, sensitive, connections));
    }
    if (action.action().creates()) {
      // self: the attributes with the marks of the values they were evaluated from
      Value self =
          markedAt(Value.object(evaluated).copyMarksTo(Value.of(attributes)), sensitivePaths);
      EvalContext createCtx = walk.contextFor(objects, prior, self, action.address());
      for (ProvisionerDecl p : resource.provisioners()) {
        if (!p.runsAtDestroy()) {
          step(p, resource.connection(), createCtx, diagnostics, sensitive, steps, connections);
        }
      }
    }
    return new ActionResolution(
        attributes,
        steps,
        withPriorSecretsUsed(sensitive),
        diagnostics,
        sources,
        connections,
        AttributeSealing.union(
            sensitivePaths,
            AttributeSealing.unchangedPriorPaths(
                prior.instance(action.address()).orElse(null), attributes)));
  }

  /** Preconditions are checked again at apply, when their values are known; unknown: error. */
  private void checkPreconditions(
      PlannedAction action, Lifecycle lifecycle, EvalContext ctx, Diagnostics diagnostics) {
    if (!model.checkConditions(
        lifecycle.preconditions(), "precondition", action.address(), ctx, diagnostics)) {
      diagnostics.error(
          "Precondition not known",
          "A precondition of " + action.address() + " is still unknown when it is applied.",
          null);
    }
  }

  /**
   * Known arguments into {@code attributes} (their sensitive strings into {@code sensitive}), the
   * names of unknown ones into {@code unknown}.
   */
  private static void collectKnown(
      Map<String, Value> evaluated,
      Map<String, Object> attributes,
      Set<String> unknown,
      Set<String> sensitive) {
    evaluated.forEach(
        (name, value) -> {
          if (!value.isWhollyKnown()) {
            unknown.add(name);
          } else {
            ConfigModel.collectSensitive(value, sensitive);
            attributes.put(name, value.isNull() ? null : value.unmarkDeep().toJava());
          }
        });
  }

  /** Delete, forget or no-op: the object stays as the state holds it; a delete's steps. */
  private ActionResolution withoutNewObject(
      PlannedAction action,
      InstanceKey key,
      Diagnostics diagnostics,
      Set<String> sensitive,
      List<Map<String, Object>> connections) {
    List<ProvisionerStep> steps =
        action.action() == ActionType.DELETE
            ? destroySteps(action, key, diagnostics, sensitive, connections)
            : List.of();
    Map<String, Object> before = action.before() == null ? Map.of() : action.before();
    return new ActionResolution(
        before,
        steps,
        withPriorSecretsUsed(sensitive),
        diagnostics,
        sources,
        connections,
        AttributeSealing.unchangedPriorPaths(
            prior.instance(action.address()).orElse(null), before));
  }

  private static void reportUnknown(
      PlannedAction action, Set<String> unknown, Diagnostics diagnostics) {
    for (String name : unknown) {
      diagnostics.error(
          "Value not known at apply",
          "The argument \""
              + name
              + "\" of "
              + action.address()
              + " depends on a value that is still unknown when the resource is applied.",
          null);
    }
  }

  /** {@code terraform_data}: output is input, so it is sealed where input is. */
  private static void sealOutputWhereInputIs(List<List<Object>> sensitivePaths) {
    List.copyOf(sensitivePaths).stream()
        .filter(path -> "input".equals(path.get(0)))
        .forEach(
            path -> {
              List<Object> output = new ArrayList<>(path);
              output.set(0, "output");
              sensitivePaths.add(output);
            });
  }

  /** ignore_changes at update: the recorded value stays (or stays absent). */
  private void ignoreChanges(
      PlannedAction action,
      Lifecycle lifecycle,
      Map<String, Object> attributes,
      Set<String> unknown) {
    if (action.after() == null) {
      return;
    }
    List<List<Object>> paths = new ArrayList<>(lifecycle.ignoreChanges());
    if (lifecycle.ignoreAll()) {
      attributes.keySet().stream().filter(k -> !k.equals("id")).forEach(k -> paths.add(List.of(k)));
    }
    for (List<Object> path : paths) {
      String attribute = String.valueOf(path.get(0));
      if (path.size() > 1 && action.afterUnknown().contains(attribute)) {
        // known only in part at plan (a timestamp() beside the ignored key): the attribute is
        // known now; the prior value stays at the ignored path
        IgnoreChanges.keepPrior(attributes, action.before(), path);
        continue;
      }
      // the plan already holds the value to keep at every ignored path
      unknown.remove(attribute);
      if (action.after().containsKey(attribute)) {
        attributes.put(attribute, action.after().get(attribute));
      } else {
        attributes.remove(attribute);
      }
    }
  }

  private List<ProvisionerStep> destroySteps(
      PlannedAction action,
      InstanceKey key,
      Diagnostics diagnostics,
      Set<String> sensitive,
      List<Map<String, Object>> connections) {
    ResourceDecl resource = model.resourceDecl(action.address());
    List<ProvisionerDecl> provisioners;
    Optional<BlockDecl> connection;
    if (resource != null) {
      provisioners = resource.provisioners();
      connection = resource.connection();
    } else {
      Optional<RemovedBlock> removed = model.removedBlock(action.resourceAddress());
      if (removed.isEmpty()) {
        return List.of();
      }
      provisioners = removed.get().provisioners();
      connection = removed.get().connection();
    }
    // a prior secret keeps its mark in a destroy provisioner's self (opened sealed values)
    Value self =
        prior
            .instance(action.address())
            .filter(i -> i.attributes().equals(action.before()))
            .map(PriorInstance::value)
            .orElseGet(
                () ->
                    appliedValue(
                        action.address(), action.before() == null ? Map.of() : action.before()));
    EvalContext ctx = walk.destroyContext(self, key);
    List<ProvisionerStep> steps = new ArrayList<>();
    for (ProvisionerDecl p : provisioners) {
      if (p.runsAtDestroy()) {
        step(p, connection, ctx, diagnostics, sensitive, steps, connections);
      }
    }
    return steps;
  }

  /**
   * Checks the postconditions of an instance against its attributes after apply. An empty result
   * means every postcondition holds; the planner-service calls this when the state service recorded
   * the instance and fails the run with the diagnostics otherwise.
   */
  public Diagnostics checkPostconditions(String address, Map<String, Object> attributes) {
    return checkPostconditions(address, attributes, Map.of());
  }

  /** As {@link #checkPostconditions(String, Map)}, with the other instances applied in the run. */
  public Diagnostics checkPostconditions(
      String address, Map<String, Object> attributes, Map<String, Map<String, Object>> applied) {
    String external = address;
    address = ModuleAddresses.internal(address);
    Diagnostics diagnostics = new Diagnostics();
    ResourceDecl resource = model.resourceDecl(address);
    if (resource == null) {
      return diagnostics;
    }
    Map<String, Value> objects = objects(applied);
    Value self = appliedValue(address, attributes == null ? Map.of() : attributes);
    objects.put(address, self);
    walk.invalidateResourceValue(InstanceKey.resourceOf(address));
    EvalContext ctx = walk.contextFor(objects, prior, self, address);
    if (!model.checkConditions(
        model.lifecycle(resource.address()).postconditions(),
        "postcondition",
        external,
        ctx,
        diagnostics)) {
      diagnostics.error(
          "Postcondition not known",
          "A postcondition of " + external + " is still unknown after the instance was applied.",
          null);
    }
    return diagnostics;
  }

  /**
   * The {@code check} blocks evaluated after a successful apply, with the attributes of the
   * instances applied in the run ({@code applied}, by instance address) and the others as the state
   * held them: only warnings ("Check block assertion failed" with the error message, and anything
   * that kept a condition from being decided); empty when every check passes. The planner-service
   * adds them to the run's closing message; they never fail a run.
   */
  public Diagnostics checkAfterApply(Map<String, Map<String, Object>> applied) {
    return walk.checkAfterApply(objects(applied), prior);
  }

  /**
   * The root outputs after a successful apply, evaluated with the attributes of the instances
   * applied in the run ({@code applied}, by instance address) and the others as the state held
   * them, as {@link #checkAfterApply} evaluates checks; none for a destroy. The planner-service
   * seals the sensitive ones and records them in state (docs/adr/0064).
   */
  public AppliedOutputs outputsAfterApply(
      Map<String, Map<String, Object>> applied, boolean destroy) {
    if (destroy) {
      return AppliedOutputs.none();
    }
    return walk.outputsAfterApply(objects(applied), prior);
  }

  /** The state the run planned against (with its sealed values opened). */
  public PriorState prior() {
    return prior;
  }

  private Map<String, Value> objects(Map<String, Map<String, Object>> applied) {
    Map<String, Value> objects = new LinkedHashMap<>();
    ModuleAddresses.internalKeys(applied)
        .forEach((address, attributes) -> objects.put(address, appliedValue(address, attributes)));
    return objects;
  }

  /**
   * {@code sensitive} (the values to redact from the action's output) with every value the prior
   * state holds sensitive that occurs in one of them: a step that prints a secret read from state
   * (`echo ${terraform_data.a.input}`) has the whole command marked, and its output holds the
   * secret alone. Only the secrets the action uses are added, so the others never travel with it.
   */
  private List<String> withPriorSecretsUsed(Set<String> sensitive) {
    Set<String> out = new LinkedHashSet<>(sensitive);
    for (String secret : priorSecrets) {
      if (sensitive.stream().anyMatch(s -> s.contains(secret))) {
        out.add(secret);
      }
    }
    return List.copyOf(out);
  }

  /**
   * An applied instance's attributes as expressions see them: marked where its planned value was
   * marked, with the same kind of mark, and with the state's mark wherever it still holds a value
   * the prior state recorded as sensitive (e.g. kept by {@code ignore_changes}), so a value from
   * state keeps its mark through apply too.
   */
  private Value appliedValue(String address, Map<String, Object> attributes) {
    Value value = Value.of(attributes);
    Value planned = plannedValues.get(address);
    if (planned != null) {
      value = planned.copyMarksTo(value);
    }
    for (List<Object> path :
        AttributeSealing.unchangedPriorPaths(prior.instance(address).orElse(null), attributes)) {
      value = value.markedFromStateAt(path);
    }
    return value;
  }

  private static Value markedAt(Value value, List<List<Object>> paths) {
    Value out = value;
    for (List<Object> path : paths) {
      out = out.markedAt(path);
    }
    return out;
  }

  private void step(
      ProvisionerDecl p,
      Optional<BlockDecl> resourceConnection,
      EvalContext ctx,
      Diagnostics diagnostics,
      Set<String> sensitive,
      List<ProvisionerStep> steps,
      List<Map<String, Object>> connections) {
    StepResolver.resolve(model, p, resourceConnection, ctx, diagnostics, sensitive, environment)
        .ifPresent(
            r -> {
              steps.add(r.step());
              connections.add(r.connection());
            });
  }

  /**
   * For tests and callers that must know which values get redacted: the configuration's sensitive
   * values and the workspace's sensitive environment values.
   */
  public Set<String> sensitiveValues() {
    List<String> environmentSecrets = environment.secretsUnder(Map.of());
    if (environmentSecrets.isEmpty()) {
      return model.sensitiveValues();
    }
    Set<String> out = new LinkedHashSet<>(model.sensitiveValues());
    out.addAll(environmentSecrets);
    return out;
  }
}
