package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.eval.Value;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The diff of one resource instance: its configured values against its prior state give exactly one
 * action with a reason (design §4, seeds 000–002): create when there is no prior instance; replace
 * when it is tainted, a replace was requested, an attribute that cannot be updated changed or
 * {@code replace_triggered_by} fired; otherwise update or no-op, with {@code ignore_changes}
 * applied. Pure; one per planning pass.
 */
final class InstanceDiff {
  /** The action, and the instance's values as later expressions see them. */
  record Decision(PlannedAction action, Map<String, Value> planned) {}

  /** What an action records of one instance, shared by its three outcomes. */
  private record Instance(
      String address,
      ResourceDecl resource,
      ResourceKind kind,
      Map<String, Value> evaluated,
      boolean cbd,
      boolean skipDestroy,
      List<String> dependencies) {

    PlannedAction action(
        ActionType type,
        ActionReason reason,
        Map<String, Object> before,
        Map<String, Object> after,
        Set<String> unknown,
        Set<String> forcing,
        Set<String> sensitive,
        Map<String, Object> unknownParts) {
      return new PlannedAction(
          address,
          resource.type(),
          resource.name(),
          type,
          reason,
          before,
          after,
          unknown,
          forcing,
          List.of(),
          dependencies,
          cbd,
          skipDestroy,
          sensitive,
          unknownParts);
    }
  }

  /**
   * The configured values as a plan records them: the known ones (or known parts), the names of
   * unknown and of sensitive ones, and the shape of the partly known ones.
   */
  private record Proposed(
      Map<String, Object> after,
      Set<String> unknown,
      Set<String> sensitive,
      Map<String, Object> unknownParts) {

    static Proposed of(Map<String, Value> evaluated) {
      Proposed p =
          new Proposed(
              new LinkedHashMap<>(),
              new LinkedHashSet<>(),
              new LinkedHashSet<>(),
              new LinkedHashMap<>());
      evaluated.forEach(
          (name, value) -> {
            if (value.containsSensitive()) {
              p.sensitive().add(name);
            }
            if (!value.isWhollyKnown()) {
              p.unknown().add(name);
              if (value.isKnown()) {
                // known in part (a map with a timestamp() in it): after holds the known parts
                p.after().put(name, UnknownParts.knownParts(value));
                p.unknownParts().put(name, UnknownParts.shape(value));
              }
            } else if (!value.isNull()) {
              p.after().put(name, value.unmarkDeep().toJava());
            }
          });
      return p;
    }

    /** A copy to keep before {@code ignore_changes} rewrites this one (sensitive is shared). */
    Proposed copy() {
      return new Proposed(
          new LinkedHashMap<>(after),
          new LinkedHashSet<>(unknown),
          sensitive,
          new LinkedHashMap<>(unknownParts));
    }
  }

  private final ConfigModel model;

  InstanceDiff(ConfigModel model) {
    this.model = model;
  }

  Decision decide(
      String address,
      ResourceDecl resource,
      ResourceKind kind,
      Lifecycle lifecycle,
      Map<String, Value> evaluated,
      Optional<PriorInstance> prior,
      boolean replaceRequested,
      boolean triggered) {
    Proposed proposed = Proposed.of(evaluated);
    Instance instance =
        new Instance(
            address,
            resource,
            kind,
            evaluated,
            model.createBeforeDestroy(resource.address()),
            lifecycle.skipDestroy(),
            model.dependencies(resource.address()));
    if (prior.isEmpty()) {
      // ignore_changes is considered at create: the configured values are used
      proposed.unknown().add("id");
      outputUnknownWhenInputSet(kind, evaluated.get("input"), proposed.unknown());
      return new Decision(
          instance.action(
              ActionType.CREATE,
              null,
              null,
              proposed.after(),
              proposed.unknown(),
              Set.of(),
              proposed.sensitive(),
              proposed.unknownParts()),
          evaluated);
    }
    PriorInstance before = prior.get();
    Set<String> sensitive = proposed.sensitive();
    sensitive.addAll(Redaction.attributesContaining(before.attributes(), model.sensitiveValues()));
    // values sealed in state stay secret even when the configuration no longer marks them
    before.sensitivePaths().forEach(path -> sensitive.add(String.valueOf(path.get(0))));
    // ignore_changes: the prior value stands in for the configured one at update/replace
    // decisions
    Proposed kept = proposed.copy();
    List<List<Object>> ignored =
        lifecycle.ignoreAll()
            ? kind.arguments().stream().<List<Object>>map(List::of).toList()
            : lifecycle.ignoreChanges();
    for (List<Object> path : ignored) {
      IgnoreChanges.apply(
          proposed.after(), proposed.unknown(), proposed.unknownParts(), before.attributes(), path);
    }
    Set<String> forcing = new LinkedHashSet<>();
    for (String attribute : kind.replacingAttributes()) {
      if (changed(attribute, proposed.after(), proposed.unknown(), before)) {
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
      return replace(instance, before, reason, forcing, kept);
    }
    return update(instance, before, proposed, ignored);
  }

  /** The replacement is a create: configured values, ignore_changes not applied. */
  private static Decision replace(
      Instance instance,
      PriorInstance before,
      ActionReason reason,
      Set<String> forcing,
      Proposed kept) {
    Set<String> newUnknown = new LinkedHashSet<>(kept.unknown());
    newUnknown.add("id");
    outputUnknownWhenInputSet(instance.kind(), instance.evaluated().get("input"), newUnknown);
    ActionType type =
        instance.skipDestroy()
            ? ActionType.FORGET_THEN_CREATE
            : instance.cbd() ? ActionType.CREATE_THEN_DELETE : ActionType.DELETE_THEN_CREATE;
    return new Decision(
        instance.action(
            type,
            reason,
            before.attributes(),
            kept.after(),
            newUnknown,
            forcing,
            kept.sensitive(),
            kept.unknownParts()),
        instance.evaluated());
  }

  /** Update or no-op, with {@code ignore_changes} applied to the planned values too. */
  private static Decision update(
      Instance instance, PriorInstance before, Proposed proposed, List<List<Object>> ignored) {
    Map<String, Object> after = proposed.after();
    Set<String> unknown = proposed.unknown();
    ResourceKind kind = instance.kind();
    Map<String, Value> evaluated = instance.evaluated();
    after.put("id", before.attributes().get("id"));
    kind.mirrorOnUpdate(after);
    if (kind == ResourceKind.TERRAFORM_DATA
        && changed("input", after, unknown, before)
        && (after.containsKey("input") || unknown.contains("input"))) {
      // a changed input's output is known after apply (Terraform's terraform_data plan)
      after.remove("output");
      unknown.add("output");
    }
    proposed.unknownParts().keySet().retainAll(unknown);
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
        instance.action(
            updated ? ActionType.UPDATE : ActionType.NO_OP,
            null,
            before.attributes(),
            after,
            unknown,
            Set.of(),
            proposed.sensitive(),
            proposed.unknownParts()),
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
}
