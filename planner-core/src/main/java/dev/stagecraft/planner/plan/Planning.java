package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.apply.ApplyContext;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One planning pass of {@link Planner}: evaluates locals and resources in dependency order, expands
 * instances and decides each instance's action against the prior state ({@link InstanceDiff}), then
 * plans the instances only in state ({@link Orphans}), orders the actions ({@link ActionOrdering})
 * and plans the outputs ({@link OutputChanges}). Not thread-safe; used once.
 */
final class Planning {
  private final ConfigModel model;
  private final WalkScope walk;
  private final PriorState prior;
  private final PlanRequest request;
  private final Diagnostics diagnostics;
  private final boolean validateOnly;

  /**
   * An unknown count or for_each is no error: in validate, and in a check planned without reading
   * the remote states its values may come from (docs/planning.md "Remote state").
   */
  private final boolean unknownCountsAllowed;

  private final Map<String, Value> objects = new LinkedHashMap<>();
  private final Map<String, Value> localValues = new LinkedHashMap<>();
  private final Map<String, PlannedAction> actions = new LinkedHashMap<>();
  private final EvalBudget budget;
  private final InstanceCount instances;
  private final InstanceDiff diff;
  private final Orphans orphans;

  Planning(
      WalkScope walk,
      PriorState prior,
      PlanRequest request,
      Diagnostics diagnostics,
      boolean validateOnly,
      PlanLimits limits) {
    this.model = walk.model();
    this.prior = prior;
    this.request = request;
    this.diagnostics = diagnostics;
    this.validateOnly = validateOnly;
    this.unknownCountsAllowed =
        validateOnly || (request.remoteStates() == null && !model.dataSources().isEmpty());
    this.budget = EvalBudget.start(limits.evaluation());
    this.walk = walk.withBudget(budget);
    this.instances = new InstanceCount(limits, diagnostics);
    this.diff = new InstanceDiff(model);
    this.orphans = new Orphans(model, prior, request);
  }

  /** The plan, all of it evaluated within the plan's budget. */
  Plan plan() {
    if (!request.destroy()) {
      walkConfiguration();
      if (diagnostics.hasErrors()) {
        return null;
      }
      orphans.removedInstancesOfConfiguredResources(actions);
    }
    orphans.instancesWithoutConfiguration(actions);
    warnAboutUnmatchedReplaceRequests();
    checkPreventDestroy();
    if (diagnostics.hasErrors()) {
      return null;
    }
    List<PlannedAction> ordered =
        new ActionOrdering(actions, prior, model, diagnostics).withOrder();
    List<OutputChange> outputs =
        OutputChanges.plan(walk, prior, request, objects, localValues, diagnostics);
    // checks last, against every planned value; nothing depends on them (destroy runs none)
    List<CheckResult> checks =
        request.destroy()
            ? List.of()
            : CheckAssertions.evaluate(
                model.config().checks(),
                walk.context(objects, localValues, prior, null, null),
                false,
                diagnostics);
    if (diagnostics.hasErrors()) {
      return null;
    }
    return new Plan(
        request.workspace(),
        prior.serial(),
        prior.lineage(),
        request.destroy(),
        ordered,
        Redaction.scrub(prior.document(), model.sensitiveValues()),
        outputs,
        checks);
  }

  /** {@link #walkConfiguration()} within the plan's budget. */
  void validate() {
    walkConfiguration();
  }

  /**
   * The walk that planned (its instance keys), for the {@link ApplyContext}, which continues from
   * it ({@link WalkScope#forApply}).
   */
  WalkScope walk() {
    return walk;
  }

  /**
   * The value of each planned instance as other expressions saw it, with its marks (instance
   * address → value), for the {@link ApplyContext}: the attributes an applied instance reports are
   * plain data, and get these marks back when other expressions read them.
   */
  Map<String, Value> plannedValues() {
    return Map.copyOf(objects);
  }

  /**
   * Local values and resources in dependency order. An exceeded budget stops the walk (its error is
   * the plan's).
   */
  void walkConfiguration() {
    for (String node : model.order()) {
      if (budget.spent().isPresent()) {
        return;
      }
      if (ConfigModel.isDataNode(node)) {
        continue; // read and evaluated before the walk (RemoteStates)
      }
      if (ConfigModel.isLocalNode(node)) {
        var local = model.local(node);
        localValues.put(
            local.name(),
            walk.evaluateLocal(
                local, walk.context(objects, localValues, prior, null, null, node), diagnostics));
      } else {
        planResource(model.resource(node));
      }
    }
  }

  private void planResource(ResourceDecl r) {
    EvalContext base = walk.context(objects, localValues, prior, null, null, r.address());
    List<InstanceKey> keys =
        InstanceExpansion.keys(model, r, base, diagnostics, unknownCountsAllowed, instances);
    if (keys != null
        && r.count().isEmpty()
        && r.forEach().isEmpty()
        && !instances.admit("one instance", BigDecimal.ONE, r.address(), r.range())) {
      return;
    }
    if (keys == null) {
      if (validateOnly) {
        // count or for_each unknown without variable values: check the arguments once
        model.evaluateAttributes(
            r,
            walk.context(objects, localValues, prior, null, null, r.address())
                .withRoot("count", Value.object(Map.of("index", Value.unknown())))
                .withRoot(
                    "each", Value.object(Map.of("key", Value.unknown(), "value", Value.unknown()))),
            diagnostics);
      }
      return;
    }
    walk.recordExpansion(r.address(), keys);
    ResourceKind kind = ResourceKind.of(r.type());
    Lifecycle lifecycle = model.lifecycle(r.address());
    for (InstanceKey key : keys) {
      String address = r.address() + key.suffix();
      EvalContext ctx = walk.context(objects, localValues, prior, null, key, r.address());
      Map<String, Value> evaluated = model.evaluateAttributes(r, ctx, diagnostics);
      if (evaluated == null) {
        continue;
      }
      if (validateOnly) {
        objects.put(address, Value.unknown());
        walk.invalidateResourceValue(r.address());
        continue;
      }
      // unknown conditions are checked again by the ApplyContext when the values are known
      model.checkConditions(lifecycle.preconditions(), "precondition", address, ctx, diagnostics);
      InstanceDiff.Decision decision =
          diff.decide(
              address,
              r,
              kind,
              lifecycle,
              evaluated,
              prior.instance(address),
              request.replace().contains(address),
              triggered(lifecycle, ctx));
      actions.put(address, decision.action());
      Value self = kind.plannedObject(decision.action(), decision.planned());
      objects.put(address, self);
      walk.invalidateResourceValue(r.address());
      model.checkConditions(
          lifecycle.postconditions(),
          "postcondition",
          address,
          walk.context(objects, localValues, prior, self, key, r.address()),
          diagnostics);
    }
  }

  /**
   * {@code replace_triggered_by} (seed 001): a whole resource fires when any of its instances is
   * planned for update or replace, an instance when it is, an attribute when its value changes.
   */
  private boolean triggered(Lifecycle lifecycle, EvalContext ctx) {
    for (Lifecycle.Trigger t : lifecycle.replaceTriggeredBy()) {
      ResourceDecl target = model.resource(t.resourceAddress());
      if (target == null) {
        continue;
      }
      List<String> instances = new ArrayList<>();
      if (t.key() != null) {
        EvalResult key = model.evaluateExpression(t.key(), ctx);
        diagnostics.addAll(key.diagnostics());
        if (key.hasErrors() || !key.value().isWhollyKnown()) {
          continue;
        }
        Value k = key.value().unmarkDeep();
        Object instanceKey =
            k instanceof Value.NumberValue n ? (Object) n.value().intValue() : k.asString();
        instances.add(t.resourceAddress() + InstanceKey.suffixOf(instanceKey));
      } else {
        actions.keySet().stream()
            .filter(a -> InstanceKey.resourceOf(a).equals(t.resourceAddress()))
            .forEach(instances::add);
      }
      for (String instance : instances) {
        PlannedAction action = actions.get(instance);
        if (action == null) {
          continue;
        }
        if (t.attributePath().isEmpty()) {
          if (action.action() == ActionType.UPDATE || action.action().isReplace()) {
            return true;
          }
          continue;
        }
        String attribute = String.valueOf(t.attributePath().get(0));
        Object beforeValue = IgnoreChanges.get(action.before(), t.attributePath()).orElse(null);
        boolean afterUnknown = action.afterUnknown().contains(attribute);
        Object afterValue = IgnoreChanges.get(action.after(), t.attributePath()).orElse(null);
        if (action.before() != null
            && (afterUnknown
                || !Objects.equals(
                    Planner.normalize(beforeValue), Planner.normalize(afterValue)))) {
          return true;
        }
      }
    }
    return false;
  }

  private void warnAboutUnmatchedReplaceRequests() {
    for (String address : request.replace()) {
      PlannedAction a = actions.get(address);
      if (a == null || !a.action().isReplace() && a.action() != ActionType.CREATE) {
        if (a == null || a.action() != ActionType.DELETE) {
          diagnostics.warning(
              "Replace target not found",
              "-replace="
                  + address
                  + " names no instance that is in both the configuration and the state, so"
                  + " nothing is replaced because of it. Instance addresses look like"
                  + " type.name, type.name[0] or type.name[\"key\"].",
              null);
        }
      }
    }
  }

  /**
   * {@code prevent_destroy} (seed 001): the whole plan is rejected if any action would destroy a
   * protected instance (delete or a destroying replace), while the argument is in configuration. A
   * forget destroys nothing, so it is allowed.
   */
  private void checkPreventDestroy() {
    for (PlannedAction a : actions.values()) {
      if (!a.action().deletes()) {
        continue;
      }
      String resource = a.resourceAddress();
      if (!model.hasResource(resource) && model.disabledResource(resource) == null) {
        continue;
      }
      Lifecycle lifecycle = model.lifecycle(resource);
      if (lifecycle.preventDestroy()) {
        diagnostics.error(
            "Instance cannot be destroyed",
            "Resource instance "
                + a.address()
                + " has lifecycle.prevent_destroy set, but the plan calls for it to be destroyed"
                + " ("
                + String.join(", ", a.action().terraformActions())
                + "). To avoid this error and continue with the plan, either disable"
                + " lifecycle.prevent_destroy or change the configuration so that the instance"
                + " is not destroyed.",
            lifecycle.preventDestroyRange());
      }
    }
  }
}
