package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.apply.ApplyContext;
import dev.stagecraft.planner.graph.DependencyGraph;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Compares a configuration with the workspace's prior state and gives every resource instance
 * exactly one action with a reason (design §4). Pure: the same request and state give the same
 * plan. Every problem is returned as a diagnostic with its source position; nothing is thrown for
 * user input.
 */
public final class Planner {
  private Planner() {}

  /**
   * Checks a configuration without state or variable values (like {@code terraform validate}):
   * syntax, references, cycles, and every argument that can be evaluated.
   */
  public static Diagnostics validate(Map<String, String> files, java.nio.file.Path baseDir) {
    Diagnostics diagnostics = new Diagnostics();
    LoadResult loaded = ConfigLoader.load(files);
    diagnostics.addAll(loaded.diagnostics());
    if (diagnostics.hasErrors()) {
      return diagnostics;
    }
    PlanRequest request = new PlanRequest("default", files, Map.of(), List.of(), false, baseDir);
    ConfigModel model = ConfigModel.analyze(loaded.config(), request, diagnostics, true);
    if (!diagnostics.hasErrors()) {
      Map<String, Value> planned = new LinkedHashMap<>();
      for (String address : model.order()) {
        ResourceDecl resource = model.resource(address);
        model.evaluateAttributes(
            resource, model.context(planned, PriorState.empty(), null), diagnostics);
        planned.put(address, Value.unknown());
      }
    }
    return diagnostics;
  }

  public static PlanResult plan(PlanRequest request, PriorState prior) {
    Diagnostics diagnostics = new Diagnostics();
    LoadResult loaded = ConfigLoader.load(request.files());
    diagnostics.addAll(loaded.diagnostics());
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    Configuration config = loaded.config();
    ConfigModel model = ConfigModel.analyze(config, request, diagnostics, false);
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    List<PlannedAction> actions = new ArrayList<>();
    Map<String, Value> planned = new LinkedHashMap<>();
    Set<String> changed = new LinkedHashSet<>();
    if (!request.destroy()) {
      for (String address : model.order()) {
        ResourceDecl resource = model.resource(address);
        Optional<PriorInstance> before = prior.instance(address);
        Map<String, Value> evaluated =
            model.evaluateAttributes(resource, model.context(planned, prior, null), diagnostics);
        if (evaluated == null) {
          continue;
        }
        ResourceKind kind = ResourceKind.of(resource.type());
        PlannedAction action =
            decide(
                address,
                resource,
                kind,
                evaluated,
                before,
                request.replace().contains(address),
                model.dependencies(address));
        actions.add(action);
        if (action.isChange()) {
          changed.add(address);
        }
        planned.put(address, kind.plannedObject(action, evaluated));
      }
    }
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    actions = withCreateOrder(actions, model, changed);
    actions.addAll(orphanDeletes(prior, model, request.destroy()));
    Plan plan =
        new Plan(request.workspace(), prior.serial(), prior.lineage(), request.destroy(), actions);
    return new PlanResult(
        plan, diagnostics, request.files(), new ApplyContext(model, prior, request.files()));
  }

  private static PlannedAction decide(
      String address,
      ResourceDecl resource,
      ResourceKind kind,
      Map<String, Value> evaluated,
      Optional<PriorInstance> prior,
      boolean replaceRequested,
      List<String> dependencies) {
    Map<String, Object> after = new LinkedHashMap<>();
    Set<String> unknown = new LinkedHashSet<>();
    evaluated.forEach(
        (name, value) -> {
          if (!value.isWhollyKnown()) {
            unknown.add(name);
          } else if (!value.isNull()) {
            after.put(name, value.unmarkDeep().toJava());
          }
        });
    if (prior.isEmpty()) {
      unknown.add("id");
      return new PlannedAction(
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
          dependencies);
    }
    PriorInstance before = prior.get();
    Set<String> forcing = new LinkedHashSet<>();
    for (String attribute : kind.replacingAttributes()) {
      if (unknown.contains(attribute)
          || !Objects.equals(
              normalize(after.get(attribute)), normalize(before.attributes().get(attribute)))) {
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
    }
    if (reason != null) {
      Set<String> newUnknown = new LinkedHashSet<>(unknown);
      newUnknown.add("id");
      return new PlannedAction(
          address,
          resource.type(),
          resource.name(),
          ActionType.DELETE_THEN_CREATE,
          reason,
          before.attributes(),
          after,
          newUnknown,
          forcing,
          List.of(),
          dependencies);
    }
    after.put("id", before.attributes().get("id"));
    kind.mirrorOnUpdate(after);
    boolean updated = false;
    for (String attribute : kind.updatableAttributes()) {
      if (unknown.contains(attribute)
          || !Objects.equals(
              normalize(after.get(attribute)), normalize(before.attributes().get(attribute)))) {
        updated = true;
      }
    }
    return new PlannedAction(
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
        dependencies);
  }

  /** State stores absent maps as null and numbers as JSON numbers; compare by meaning. */
  private static Object normalize(Object value) {
    if (value instanceof Map<?, ?> map && map.isEmpty()) {
      return null;
    }
    if (value instanceof Number n) {
      return new java.math.BigDecimal(n.toString()).stripTrailingZeros();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(k, normalize(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(Planner::normalize).toList();
    }
    return value;
  }

  /** Creates, updates and replaces wait for every changing resource they depend on. */
  private static List<PlannedAction> withCreateOrder(
      List<PlannedAction> actions, ConfigModel model, Set<String> changed) {
    List<PlannedAction> out = new ArrayList<>();
    for (PlannedAction a : actions) {
      if (!a.isChange()) {
        out.add(a);
        continue;
      }
      List<String> waitFor =
          model.graph().transitiveDependenciesOf(a.address()).stream()
              .filter(changed::contains)
              .sorted()
              .toList();
      out.add(
          new PlannedAction(
              a.address(),
              a.type(),
              a.name(),
              a.action(),
              a.reason(),
              a.before(),
              a.after(),
              a.afterUnknown(),
              a.replacePaths(),
              waitFor,
              a.dependencies()));
    }
    return out;
  }

  /**
   * Instances in state without configuration are destroyed; a destroy waits for the destroys of
   * everything that depends on it (reverse dependency order).
   */
  private static List<PlannedAction> orphanDeletes(
      PriorState prior, ConfigModel model, boolean destroyAll) {
    List<PriorInstance> orphans =
        prior.instances().values().stream()
            .filter(i -> destroyAll || !model.hasResource(i.address()))
            .sorted(Comparator.comparing(PriorInstance::address))
            .toList();
    Set<String> orphanAddresses = new LinkedHashSet<>();
    orphans.forEach(o -> orphanAddresses.add(o.address()));
    DependencyGraph reverse = new DependencyGraph();
    for (PriorInstance o : orphans) {
      reverse.addNode(o.address());
      for (String dep : o.dependencies()) {
        if (orphanAddresses.contains(dep)) {
          // the dependency's destroy waits for this (its dependent's) destroy
          reverse.addEdge(dep, o.address());
        }
      }
    }
    List<String> order =
        reverse.findCycle().isPresent() ? List.copyOf(orphanAddresses) : reverse.topologicalOrder();
    List<PlannedAction> out = new ArrayList<>();
    for (String address : order) {
      PriorInstance o = prior.instances().get(address);
      List<String> waitFor =
          reverse.findCycle().isPresent()
              ? List.of()
              : reverse.dependenciesOf(address).stream().sorted().toList();
      out.add(
          new PlannedAction(
              address,
              o.type(),
              o.name(),
              ActionType.DELETE,
              destroyAll ? null : ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG,
              o.attributes(),
              null,
              Set.of(),
              Set.of(),
              waitFor,
              o.dependencies()));
    }
    return out;
  }
}
