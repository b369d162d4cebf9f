package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ResourceDecl;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Instances in state that the configuration does not plan: those {@code count} / {@code for_each}
 * no longer produce, those whose resource (or module) is gone or disabled, and every instance when
 * destroying. Each gets a delete, or a forget when {@code destroy = false} is in effect, added to
 * the pass's actions. One per planning pass.
 */
final class Orphans {
  private final ConfigModel model;
  private final PriorState prior;
  private final PlanRequest request;
  private Map<String, List<PriorInstance>> priorByResource;

  Orphans(ConfigModel model, PriorState prior, PlanRequest request) {
    this.model = model;
    this.prior = prior;
    this.request = request;
  }

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
  void removedInstancesOfConfiguredResources(Map<String, PlannedAction> actions) {
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
  void instancesWithoutConfiguration(Map<String, PlannedAction> actions) {
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
}
