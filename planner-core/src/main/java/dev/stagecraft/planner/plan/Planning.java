package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.OutputDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.apply.ApplyContext;
import dev.stagecraft.planner.graph.DependencyGraph;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares a configuration with the workspace's prior state and gives every resource instance
 * exactly one action with a reason (design §4, seeds 000–002). Pure: the same request and state
 * give the same plan. Every problem is returned as a diagnostic with its source position; nothing
 * is thrown for user input. A plan stays within its {@link PlanLimits}: a limit exceeded stops it
 * with an error naming the limit.
 */
/**
 * One planning pass of {@link Planner}: evaluates locals and resources in dependency order, expands
 * instances and decides each instance's action against the prior state. Not thread-safe; used once.
 */
final class Planning {
  private final ConfigModel model;
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

  Planning(
      ConfigModel model,
      PriorState prior,
      PlanRequest request,
      Diagnostics diagnostics,
      boolean validateOnly,
      PlanLimits limits) {
    this.model = model;
    this.prior = prior;
    this.request = request;
    this.diagnostics = diagnostics;
    this.validateOnly = validateOnly;
    this.unknownCountsAllowed =
        validateOnly || (request.remoteStates() == null && !model.dataSources().isEmpty());
    this.budget = EvalBudget.start(limits.evaluation());
    this.instances = new InstanceCount(limits, diagnostics);
  }

  /** The plan, all of it evaluated within the plan's budget. */
  Plan plan() {
    model.useBudget(budget);
    try {
      return planWithinBudget();
    } finally {
      model.useBudget(null);
    }
  }

  private Plan planWithinBudget() {
    if (!request.destroy()) {
      walkConfiguration();
      if (diagnostics.hasErrors()) {
        return null;
      }
      removedInstancesOfConfiguredResources();
    }
    instancesWithoutConfiguration();
    warnAboutUnmatchedReplaceRequests();
    checkPreventDestroy();
    if (diagnostics.hasErrors()) {
      return null;
    }
    List<PlannedAction> ordered = withOrder();
    List<OutputChange> outputs = outputChanges();
    // checks last, against every planned value; nothing depends on them (destroy runs none)
    List<CheckResult> checks =
        request.destroy()
            ? List.of()
            : CheckAssertions.evaluate(
                model.config().checks(),
                model.context(objects, localValues, prior, null, null),
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
    model.useBudget(budget);
    try {
      walkConfiguration();
    } finally {
      model.useBudget(null);
    }
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
            model.evaluateLocal(
                local, model.context(objects, localValues, prior, null, null, node), diagnostics));
      } else {
        planResource(model.resource(node));
      }
    }
  }

  private void planResource(ResourceDecl r) {
    EvalContext base = model.context(objects, localValues, prior, null, null, r.address());
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
            model
                .context(objects, localValues, prior, null, null, r.address())
                .withRoot("count", Value.object(Map.of("index", Value.unknown())))
                .withRoot(
                    "each", Value.object(Map.of("key", Value.unknown(), "value", Value.unknown()))),
            diagnostics);
      }
      return;
    }
    model.recordExpansion(r.address(), keys);
    ResourceKind kind = ResourceKind.of(r.type());
    Lifecycle lifecycle = model.lifecycle(r.address());
    for (InstanceKey key : keys) {
      String address = r.address() + key.suffix();
      EvalContext ctx = model.context(objects, localValues, prior, null, key, r.address());
      Map<String, Value> evaluated = model.evaluateAttributes(r, ctx, diagnostics);
      if (evaluated == null) {
        continue;
      }
      if (validateOnly) {
        objects.put(address, Value.unknown());
        model.invalidateResourceValue(r.address());
        continue;
      }
      // unknown conditions are checked again by the ApplyContext when the values are known
      model.checkConditions(lifecycle.preconditions(), "precondition", address, ctx, diagnostics);
      Decision decision =
          decide(
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
      model.invalidateResourceValue(r.address());
      model.checkConditions(
          lifecycle.postconditions(),
          "postcondition",
          address,
          model.context(objects, localValues, prior, self, key, r.address()),
          diagnostics);
    }
  }

  private record Decision(PlannedAction action, Map<String, Value> planned) {}

  private Decision decide(
      String address,
      ResourceDecl resource,
      ResourceKind kind,
      Lifecycle lifecycle,
      Map<String, Value> evaluated,
      Optional<PriorInstance> prior,
      boolean replaceRequested,
      boolean triggered) {
    Map<String, Object> after = new LinkedHashMap<>();
    Set<String> unknown = new LinkedHashSet<>();
    Set<String> sensitive = new LinkedHashSet<>();
    Map<String, Object> unknownParts = new LinkedHashMap<>();
    evaluated.forEach(
        (name, value) -> {
          if (value.containsSensitive()) {
            sensitive.add(name);
          }
          if (!value.isWhollyKnown()) {
            unknown.add(name);
            if (value.isKnown()) {
              // known in part (a map with a timestamp() in it): after holds the known parts
              after.put(name, UnknownParts.knownParts(value));
              unknownParts.put(name, UnknownParts.shape(value));
            }
          } else if (!value.isNull()) {
            after.put(name, value.unmarkDeep().toJava());
          }
        });
    boolean cbd = model.createBeforeDestroy(resource.address());
    boolean skipDestroy = lifecycle.skipDestroy();
    List<String> dependencies = model.dependencies(resource.address());
    if (prior.isEmpty()) {
      // ignore_changes is considered at create: the configured values are used
      unknown.add("id");
      outputUnknownWhenInputSet(kind, evaluated.get("input"), unknown);
      return new Decision(
          new PlannedAction(
              address,
              resource.type(),
              resource.name(),
              ActionType.CREATE,
              null,
              null,
              after,
              unknown,
              Set.of(),
              List.of(),
              dependencies,
              cbd,
              skipDestroy,
              sensitive,
              unknownParts),
          evaluated);
    }
    PriorInstance before = prior.get();
    sensitive.addAll(Redaction.attributesContaining(before.attributes(), model.sensitiveValues()));
    // values sealed in state stay secret even when the configuration no longer marks them
    before.sensitivePaths().forEach(path -> sensitive.add(String.valueOf(path.get(0))));
    // ignore_changes: the prior value stands in for the configured one at update/replace
    // decisions
    Map<String, Object> kept = new LinkedHashMap<>(after);
    Set<String> keptUnknown = new LinkedHashSet<>(unknown);
    Map<String, Object> keptUnknownParts = new LinkedHashMap<>(unknownParts);
    List<List<Object>> ignored =
        lifecycle.ignoreAll()
            ? kind.arguments().stream().<List<Object>>map(List::of).toList()
            : lifecycle.ignoreChanges();
    for (List<Object> path : ignored) {
      IgnoreChanges.apply(after, unknown, unknownParts, before.attributes(), path);
    }
    Set<String> forcing = new LinkedHashSet<>();
    for (String attribute : kind.replacingAttributes()) {
      if (changed(attribute, after, unknown, before)) {
        forcing.add(attribute);
      }
    }
    ActionReason reason = null;
    if (before.tainted()) {
      reason = ActionReason.REPLACE_BECAUSE_TAINTED;
    } else if (replaceRequested) {
      reason = ActionReason.REPLACE_BY_REQUEST;
    } else if (!forcing.isEmpty()) {
      reason = ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE;
    } else if (triggered) {
      reason = ActionReason.REPLACE_BY_TRIGGERS;
    }
    if (reason != null) {
      // the replacement is a create: configured values, ignore_changes not applied
      Set<String> newUnknown = new LinkedHashSet<>(keptUnknown);
      newUnknown.add("id");
      outputUnknownWhenInputSet(kind, evaluated.get("input"), newUnknown);
      ActionType type =
          skipDestroy
              ? ActionType.FORGET_THEN_CREATE
              : cbd ? ActionType.CREATE_THEN_DELETE : ActionType.DELETE_THEN_CREATE;
      return new Decision(
          new PlannedAction(
              address,
              resource.type(),
              resource.name(),
              type,
              reason,
              before.attributes(),
              kept,
              newUnknown,
              forcing,
              List.of(),
              dependencies,
              cbd,
              skipDestroy,
              sensitive,
              keptUnknownParts),
          evaluated);
    }
    after.put("id", before.attributes().get("id"));
    kind.mirrorOnUpdate(after);
    if (kind == ResourceKind.TERRAFORM_DATA
        && changed("input", after, unknown, before)
        && (after.containsKey("input") || unknown.contains("input"))) {
      // a changed input's output is known after apply (Terraform's terraform_data plan)
      after.remove("output");
      unknown.add("output");
    }
    unknownParts.keySet().retainAll(unknown);
    boolean updated = false;
    for (String attribute : kind.updatableAttributes()) {
      if (changed(attribute, after, unknown, before)) {
        updated = true;
      }
    }
    Map<String, Value> planned = new LinkedHashMap<>(evaluated);
    for (List<Object> path : ignored) {
      String attribute = String.valueOf(path.get(0));
      planned.put(
          attribute,
          IgnoreChanges.plannedValue(
              attribute,
              unknown.contains(attribute) ? Value.unknown() : Value.of(after.get(attribute)),
              evaluated.get(attribute),
              before,
              ignored));
    }
    return new Decision(
        new PlannedAction(
            address,
            resource.type(),
            resource.name(),
            updated ? ActionType.UPDATE : ActionType.NO_OP,
            null,
            before.attributes(),
            after,
            unknown,
            Set.of(),
            List.of(),
            dependencies,
            cbd,
            skipDestroy,
            sensitive,
            unknownParts),
        planned);
  }

  /**
   * {@code terraform_data}: {@code output} is known after apply when the instance is created or
   * replaced, or its {@code input} changes, unless the input is null (Terraform's terraform_data
   * plans it so); otherwise it is the prior output.
   */
  private static void outputUnknownWhenInputSet(
      ResourceKind kind, Value input, Set<String> unknown) {
    if (kind == ResourceKind.TERRAFORM_DATA && input != null && !input.isNull()) {
      unknown.add("output");
    }
  }

  private static boolean changed(
      String attribute, Map<String, Object> after, Set<String> unknown, PriorInstance before) {
    return unknown.contains(attribute)
        || !Objects.equals(
            Planner.normalize(after.get(attribute)),
            Planner.normalize(before.attributes().get(attribute)));
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

  private Map<String, List<PriorInstance>> priorByResource;

  /** Prior instances grouped by resource address, in address order (built once). */
  private Map<String, List<PriorInstance>> priorByResource() {
    if (priorByResource == null) {
      priorByResource = new HashMap<>();
      prior.instances().values().stream()
          .sorted(Comparator.comparing(PriorInstance::address))
          .forEach(
              i ->
                  priorByResource
                      .computeIfAbsent(i.resourceAddress(), k -> new ArrayList<>())
                      .add(i));
    }
    return priorByResource;
  }

  /** Instances in state that {@code count} / {@code for_each} no longer produce. */
  private void removedInstancesOfConfiguredResources() {
    for (String node : model.order()) {
      ResourceDecl r = model.resource(node);
      if (r == null) {
        continue;
      }
      for (PriorInstance i : priorByResource().getOrDefault(r.address(), List.of())) {
        if (actions.containsKey(i.address())) {
          continue;
        }
        Object key = InstanceKey.parse(i.address()).key();
        ActionReason reason =
            key instanceof Integer && r.count().isPresent()
                ? ActionReason.DELETE_BECAUSE_COUNT_INDEX
                : key instanceof String && r.forEach().isPresent()
                    ? ActionReason.DELETE_BECAUSE_EACH_KEY
                    : ActionReason.DELETE_BECAUSE_WRONG_REPETITION;
        actions.put(
            i.address(),
            removal(
                i,
                reason,
                model.lifecycle(r.address()).skipDestroy(),
                model.createBeforeDestroy(r.address())));
      }
    }
  }

  /**
   * Instances whose resource is not (or no longer, or not enabled) in configuration, and every
   * instance when destroying: destroyed, or forgotten when {@code destroy = false} is in effect
   * (from the resource's lifecycle, a {@code removed} block, or — when neither says — state).
   */
  private void instancesWithoutConfiguration() {
    List<PriorInstance> orphans =
        prior.instances().values().stream()
            .filter(i -> !actions.containsKey(i.address()))
            .filter(i -> request.destroy() || !model.hasResource(i.resourceAddress()))
            .sorted(Comparator.comparing(PriorInstance::address))
            .toList();
    for (PriorInstance i : orphans) {
      String resource = i.resourceAddress();
      boolean enabled = model.hasResource(resource);
      Lifecycle lifecycle =
          enabled || model.disabledResource(resource) != null ? model.lifecycle(resource) : null;
      Optional<RemovedBlock> removed = model.removedBlock(resource);
      boolean skip;
      if (enabled) {
        skip = lifecycle.skipDestroy();
      } else if (lifecycle != null && lifecycle.destroy() != null) {
        skip = lifecycle.skipDestroy();
      } else if (removed.isPresent() && removed.get().destroy() != null) {
        skip = !removed.get().destroy();
      } else {
        skip = i.skipDestroy();
      }
      boolean cbd = enabled ? model.createBeforeDestroy(resource) : i.createBeforeDestroy();
      ActionReason reason =
          request.destroy()
              ? null
              : moduleGone(i)
                  ? ActionReason.DELETE_BECAUSE_NO_MODULE
                  : ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG;
      actions.put(i.address(), removal(i, reason, skip, cbd));
    }
  }

  /**
   * An instance of a module the configuration no longer calls (flattened name {@code module.x.n}).
   */
  private boolean moduleGone(PriorInstance i) {
    int last = i.name().lastIndexOf('.');
    return last > 0 && model.local("local." + i.name().substring(0, last) + ".outputs") == null;
  }

  private PlannedAction removal(
      PriorInstance i, ActionReason reason, boolean skipDestroy, boolean cbd) {
    return new PlannedAction(
        i.address(),
        i.type(),
        i.name(),
        skipDestroy ? ActionType.FORGET : ActionType.DELETE,
        reason,
        i.attributes(),
        null,
        Set.of(),
        Set.of(),
        List.of(),
        i.dependencies(),
        cbd,
        skipDestroy,
        Redaction.sensitiveAttributes(i, model.sensitiveValues()));
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

  /**
   * Ordering (design §4): a create, update or replace waits for the creates, updates and replaces
   * of every instance of every resource it depends on (directly, through local values, {@code
   * depends_on} or {@code replace_triggered_by}); a delete or forget waits for every action on an
   * instance that depended on it in state, so dependents are changed or destroyed first.
   */
  private List<PlannedAction> withOrder() {
    Map<String, List<String>> waits = new LinkedHashMap<>();
    // indexes built once, so ordering stays linear in the number of instances
    Map<String, List<String>> changesOfResource = new HashMap<>();
    Map<String, List<String>> priorDependents = new HashMap<>();
    for (PlannedAction b : actions.values()) {
      if (!b.isChange()) {
        continue;
      }
      if (!isRemoval(b)) {
        changesOfResource
            .computeIfAbsent(b.resourceAddress(), k -> new ArrayList<>())
            .add(b.address());
      }
      prior
          .instance(b.address())
          .ifPresent(
              p ->
                  p.dependencies()
                      .forEach(
                          d ->
                              priorDependents
                                  .computeIfAbsent(d, k -> new ArrayList<>())
                                  .add(b.address())));
    }
    for (PlannedAction a : actions.values()) {
      if (!a.isChange()) {
        continue;
      }
      Set<String> waitFor = new TreeSet<>();
      if (isRemoval(a)) {
        for (String b : priorDependents.getOrDefault(a.resourceAddress(), List.of())) {
          if (!b.equals(a.address())) {
            waitFor.add(b);
          }
        }
      } else {
        waitFor.addAll(nearestChangingDependencies(a.resourceAddress(), changesOfResource));
      }
      waits.put(a.address(), new ArrayList<>(waitFor));
    }
    DependencyGraph graph = new DependencyGraph();
    waits.forEach(
        (from, tos) -> {
          graph.addNode(from);
          tos.forEach(to -> graph.addEdge(from, to));
        });
    Optional<List<String>> cycle = graph.findCycle();
    if (cycle.isPresent()) {
      // dependencies recorded in state form a cycle: destroy those instances without order
      diagnostics.warning(
          "Cycle in recorded dependencies",
          "The dependencies recorded in state for "
              + String.join(" → ", cycle.get())
              + " form a cycle; their destroys are not ordered among each other.",
          null);
      for (String node : cycle.get()) {
        PlannedAction a = actions.get(node);
        if (a != null && isRemoval(a)) {
          waits.get(node).removeIf(w -> isRemoval(actions.get(w)));
        }
      }
    }
    List<PlannedAction> out = new ArrayList<>();
    for (PlannedAction a : actions.values()) {
      out.add(a.isChange() ? a.withWaitFor(waits.get(a.address())) : a);
    }
    return out;
  }

  /**
   * The changes an action on {@code resource} must wait for: those of the resources it depends on,
   * looking through resources and local values without changes to the nearest ones that change
   * (which in turn wait for theirs, so the order holds transitively).
   */
  private Set<String> nearestChangingDependencies(
      String resource, Map<String, List<String>> changesOfResource) {
    Set<String> out = new TreeSet<>();
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> queue = new ArrayDeque<>(model.graph().dependenciesOf(resource));
    while (!queue.isEmpty()) {
      String node = queue.poll();
      if (!seen.add(node)) {
        continue;
      }
      List<String> changes = changesOfResource.get(node);
      if (changes != null) {
        // one instance: its address; several (count / for_each): the resource's address,
        // which the apply schedule reads as "all of its changed instances"
        if (changes.size() == 1) {
          out.addAll(changes);
        } else {
          out.add(node);
        }
      } else {
        queue.addAll(model.graph().dependenciesOf(node));
      }
    }
    return out;
  }

  private static boolean isRemoval(PlannedAction a) {
    return a.action() == ActionType.DELETE || a.action() == ActionType.FORGET;
  }

  /** Root module outputs: evaluated against the planned values, sensitive ones redacted. */
  private List<OutputChange> outputChanges() {
    Map<String, Map<String, Object>> priorOutputs = prior.outputs();
    List<OutputChange> out = new ArrayList<>();
    Set<String> configured = new LinkedHashSet<>();
    if (!request.destroy()) {
      List<OutputDecl> outputs = new ArrayList<>(model.config().outputs());
      outputs.sort(Comparator.comparing(OutputDecl::name));
      EvalContext ctx = model.context(objects, localValues, prior, null, null);
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
