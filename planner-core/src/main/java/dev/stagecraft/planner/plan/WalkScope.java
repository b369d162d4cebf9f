package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.LocalDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.config.VariableValues;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.CallSiteValues;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The evaluation state of one walk over a {@link ConfigModel} (the model itself holds only what the
 * analysis found): the {@code data} root (remote states read before planning), the budget
 * evaluations count against, whether impure functions are known (the apply's call-site values), and
 * the resources' instance keys and values as the walk found them.
 *
 * <p>A walk before planning ({@link #of}) sees no {@code data} root; {@link RemoteStates#prepare}
 * gives the one that does. Planning walks within the plan's budget ({@link #withBudget}) and
 * records each resource's expansion; the apply context continues from it ({@link #forApply}), with
 * the expansions planning recorded, no shared budget, and {@code timestamp()} and {@code uuid()}
 * known, one result per call site and instance. The resource values are cached under a lock: the
 * apply context is used from several threads.
 */
public final class WalkScope {
  private final ConfigModel model;
  private final Value dataRoot;
  private final EvalBudget budget;
  private final CallSiteValues callSites;
  private final ResourceValues resourceValues;
  private final SimpleEvalContext baseContext;

  private WalkScope(
      ConfigModel model,
      Value dataRoot,
      EvalBudget budget,
      CallSiteValues callSites,
      ResourceValues resourceValues) {
    this.model = model;
    this.dataRoot = dataRoot;
    this.budget = budget;
    this.callSites = callSites;
    this.resourceValues = resourceValues;
    this.baseContext = baseContext(model, dataRoot);
  }

  /** A walk of {@code model} before planning: no {@code data} root, no shared budget. */
  static WalkScope of(ConfigModel model) {
    return new WalkScope(model, null, null, null, new ResourceValues());
  }

  /** This walk with the {@code data} root every later evaluation sees (null: none). */
  WalkScope withDataRoot(Value root) {
    return new WalkScope(model, root, budget, callSites, resourceValues);
  }

  /** This walk with every evaluation counted against {@code budget} (the plan's). */
  WalkScope withBudget(EvalBudget budget) {
    return new WalkScope(model, dataRoot, budget, callSites, resourceValues);
  }

  /**
   * The walk of an apply after this planning walk: the same model, {@code data} root and instance
   * keys; each evaluation with a budget of its own (an approved plan is applied much later); {@code
   * timestamp()} and {@code uuid()} known, each call site giving one result per instance (or local
   * value, or output), so the value an instance is applied with, the one its provisioners see and
   * the one a local value has for every resource are each the same however often the apply
   * evaluates them.
   */
  public WalkScope forApply() {
    return new WalkScope(
        model, dataRoot, null, new CallSiteValues(), resourceValues.withExpansionsOnly());
  }

  public ConfigModel model() {
    return model;
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
    SimpleEvalContext ctx =
        baseContext
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
        forNode == null ? model.resources().keySet() : model.graph().dependenciesOf(forNode);
    for (String address : relevant) {
      ResourceDecl r = model.resource(address);
      if (r != null) {
        byType
            .computeIfAbsent(r.type(), t -> new LinkedHashMap<>())
            .put(r.name(), resourceValues.of(r, objects, prior));
      }
    }
    for (ResourceDecl r : model.disabledResources()) {
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
  private static SimpleEvalContext baseContext(ConfigModel model, Value dataRoot) {
    SimpleEvalContext ctx = model.fileContext();
    if (!model.variables().isEmpty()) {
      ctx = ctx.withRoot("var", Value.object(model.variables()));
    }
    if (dataRoot != null) {
      ctx = ctx.withRoot("data", dataRoot);
    }
    return ctx;
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
        baseContext
            .withBudget(budget)
            .withImpureFunctionsUnknown(callSites == null)
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
    for (String node : model.order()) {
      if (ConfigModel.isLocalNode(node)) {
        LocalDecl l = model.local(node);
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
   * variable says (a sensitive one's value joins the model's sensitive values).
   */
  Value evaluateLocal(LocalDecl l, EvalContext ctx, Diagnostics diagnostics) {
    if (l.moduleVariable() == null) {
      EvalResult result = model.evaluateExpression(l.expr(), ctx);
      diagnostics.addAll(result.diagnostics());
      return result.value();
    }
    Optional<Value> given = Optional.empty();
    if (l.given()) {
      EvalResult result = model.evaluateExpression(l.expr(), ctx);
      diagnostics.addAll(result.diagnostics());
      if (result.hasErrors()) {
        return Value.unknown();
      }
      given = Optional.of(result.value());
    }
    Value value =
        VariableValues.resolveModuleInput(
            l.moduleVariable(), given, model.fileContext(), diagnostics);
    if (l.moduleVariable().sensitive()) {
      ConfigModel.collectSensitive(value, model.sensitiveValues());
    }
    return value;
  }

  /** See {@link #context}; for the instance at {@code address}. */
  public EvalContext contextFor(
      Map<String, Value> objects, PriorState prior, Value self, String address) {
    Diagnostics ignored = new Diagnostics();
    String resource = InstanceKey.resourceOf(address);
    return context(
        objects,
        evaluateLocals(objects, prior, ignored),
        prior,
        self,
        instanceKey(address),
        model.hasResource(resource) ? resource : null);
  }

  /**
   * Evaluates the configuration's {@code check} blocks after a successful apply, against the
   * applied instances ({@code objects}, by instance address; the others as the prior state holds
   * them): every result is a warning ({@link CheckAssertions}).
   */
  public Diagnostics checkAfterApply(Map<String, Value> objects, PriorState prior) {
    Diagnostics diagnostics = new Diagnostics();
    if (model.config().checks().isEmpty()) {
      return diagnostics;
    }
    Map<String, Value> localValues = evaluateLocals(objects, prior, new Diagnostics());
    CheckAssertions.evaluate(
        model.config().checks(),
        context(objects, localValues, prior, null, null),
        true,
        diagnostics);
    return diagnostics;
  }

  /**
   * Evaluates the root outputs after a successful apply, against the applied instances ({@code
   * objects}, by instance address; the others as the prior state holds them), as {@link
   * #checkAfterApply} does for checks: what the run records in state (docs/adr/0064).
   */
  public AppliedOutputs outputsAfterApply(Map<String, Value> objects, PriorState prior) {
    Diagnostics diagnostics = new Diagnostics();
    if (model.config().outputs().isEmpty()) {
      return new AppliedOutputs(Map.of(), diagnostics);
    }
    Map<String, Value> localValues = evaluateLocals(objects, prior, new Diagnostics());
    return AppliedOutputs.evaluate(
        model.config().outputs(),
        context(objects, localValues, prior, null, null),
        model,
        diagnostics);
  }
}
