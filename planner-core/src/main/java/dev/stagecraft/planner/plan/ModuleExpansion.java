package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.LocalDecl;
import dev.stagecraft.language.config.ModuleFlattener;
import dev.stagecraft.language.config.ModuleFlattener.Expansion;
import dev.stagecraft.language.config.ModuleFlattener.PendingCall;
import dev.stagecraft.language.config.ModulePaths;
import dev.stagecraft.language.config.ModuleTree;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Module calls with {@code count} or {@code for_each}, expanded before planning (docs/adr/0065):
 * the configuration is flattened with the calls whose keys are known; the {@code count} or {@code
 * for_each} of each call still pending is evaluated in that configuration (from variables, local
 * values, remote states and the outputs of modules already expanded); the calls it settled are
 * expanded in the next pass, until none is pending. A call's keys may not depend on a resource, and
 * an argument whose value stays unknown is an error at the argument.
 */
final class ModuleExpansion {
  private ModuleExpansion() {}

  /**
   * {@code root} with {@code modules} flattened into it, every repeated call expanded; problems are
   * added to {@code diagnostics}. With {@code validateOnly}, a call whose keys are unknown is
   * checked as one instance.
   */
  static Configuration flatten(
      Configuration root,
      List<ModuleTree.Module> modules,
      PlanRequest request,
      PlanLimits limits,
      Diagnostics diagnostics,
      boolean validateOnly,
      Clock clock) {
    Map<String, Expansion> known = new LinkedHashMap<>();
    InstanceCount instances = new InstanceCount(limits, diagnostics);
    while (true) {
      Diagnostics pass = new Diagnostics();
      ModuleFlattener.Result flattened = ModuleFlattener.flatten(root, modules, known, pass);
      if (flattened.pending().isEmpty() || pass.hasErrors()) {
        diagnostics.addAll(pass);
        return flattened.config();
      }
      Diagnostics probe = new Diagnostics();
      ConfigModel model =
          ConfigModel.analyze(flattened.config(), request, probe, validateOnly, clock);
      WalkScope walk =
          probe.hasErrors()
              ? null
              : RemoteStates.prepare(model, request.remoteStates(), probe, validateOnly);
      if (probe.hasErrors()) {
        diagnostics.addAll(probe);
        return flattened.config();
      }
      int before = known.size();
      List<PendingCall> unknown = new ArrayList<>();
      for (PendingCall call : flattened.pending()) {
        Diagnostics own = new Diagnostics();
        Expansion expansion = expansion(walk, call, own, instances);
        diagnostics.addAll(own);
        if (own.hasErrors()) {
          return flattened.config();
        }
        if (expansion == null) {
          unknown.add(call);
        } else {
          known.put(call.path(), expansion);
        }
      }
      if (known.size() == before) {
        for (PendingCall call : unknown) {
          if (validateOnly) {
            known.put(call.path(), new Expansion(List.of(call.count() ? 0 : "each.key"), false));
          } else {
            diagnostics.error(
                call.count() ? "Invalid count argument" : "Invalid for_each argument",
                "The \""
                    + (call.count() ? "count" : "for_each")
                    + "\" value of "
                    + ModulePaths.external(call.path())
                    + " depends on values that cannot be determined until apply, so Stagecraft"
                    + " cannot predict how many module instances will be created. Use a value"
                    + " known at plan time (a literal, variable or local value).",
                call.expression().range());
          }
        }
        if (!validateOnly) {
          return flattened.config();
        }
      }
    }
  }

  /** The call's keys; null while its value is unknown; errors added to {@code diagnostics}. */
  private static Expansion expansion(
      WalkScope walk, PendingCall call, Diagnostics diagnostics, InstanceCount instances) {
    ConfigModel model = walk.model();
    String node = ConfigModel.LOCAL_PREFIX + call.local();
    List<String> reached = resourcesReached(model, node);
    String argument = call.count() ? "count" : "for_each";
    if (!reached.isEmpty()) {
      diagnostics.error(
          "Invalid " + argument + " argument",
          "The \""
              + argument
              + "\" of "
              + ModulePaths.external(call.path())
              + " refers to "
              + String.join(", ", ModuleAddresses.external(reached))
              + ". Stagecraft expands repeated modules before planning, so their count and"
              + " for_each may use variables, local values, remote states and the outputs of"
              + " other modules that depend on no resource.",
          call.expression().range());
      return null;
    }
    Map<String, Value> locals = neededLocals(walk, node, diagnostics);
    if (locals == null) {
      return null;
    }
    Value value = locals.get(call.local());
    if (!value.isWhollyKnown()) {
      return null;
    }
    var range = call.expression().range();
    Expression ref =
        new Expression.ScopeTraversal(
            new Traversal("local", range, List.of(new Traversal.Attr(call.local(), range)), range));
    EvalContext ctx = walk.context(Map.of(), locals, PriorState.empty(), null, null, node);
    List<InstanceKey> keys =
        InstanceExpansion.keys(
            model,
            call.count() ? Optional.of(ref) : Optional.empty(),
            call.count() ? Optional.empty() : Optional.of(ref),
            ModulePaths.external(call.path()),
            ctx,
            diagnostics,
            false,
            instances);
    if (keys == null) {
      return null;
    }
    boolean set = value instanceof Value.ListValue;
    return new Expansion(keys.stream().map(InstanceKey::key).toList(), set);
  }

  /** The resources {@code node} depends on, directly or through local values. */
  private static List<String> resourcesReached(ConfigModel model, String node) {
    List<String> out = new ArrayList<>();
    for (String n : model.graph().transitiveDependenciesOf(node)) {
      if (!ConfigModel.isLocalNode(n) && !ConfigModel.isDataNode(n)) {
        out.add(n);
      }
    }
    return out.stream().sorted().toList();
  }

  /** {@code node} and the local values it depends on, evaluated in order; null on errors. */
  private static Map<String, Value> neededLocals(
      WalkScope walk, String node, Diagnostics diagnostics) {
    ConfigModel model = walk.model();
    Set<String> needed = new HashSet<>(model.graph().transitiveDependenciesOf(node));
    needed.add(node);
    Map<String, Value> values = new LinkedHashMap<>();
    for (String n : model.order()) {
      if (!needed.contains(n) || !ConfigModel.isLocalNode(n)) {
        continue;
      }
      LocalDecl l = model.local(n);
      Diagnostics problems = new Diagnostics();
      Value value =
          walk.evaluateLocal(
              l, walk.context(Map.of(), values, PriorState.empty(), null, null, n), problems);
      diagnostics.addAll(problems);
      if (problems.hasErrors()) {
        return null;
      }
      values.put(l.name(), value);
    }
    return values;
  }
}
