package dev.stagecraft.planner.service.workspace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which source's value a run uses for each variable (docs/workspaces.md, ADR 0078): the run's own,
 * then the workspace's, then the variable sets attached to the workspace (the set whose name sorts
 * first wins), then the global sets (which may not define the same variable twice; should two do so
 * all the same, the one whose name sorts first wins). Each (category, key) is decided on its own;
 * the run's own values are Terraform variables. A run's value over a stored sensitive one is
 * sensitive too. Pure functions; thread-safe.
 */
public final class VariablePrecedence {
  private VariablePrecedence() {}

  /** Only the run's own values, all of them Terraform variables. */
  public static ResolvedVariables runOnly(
      String tenant, String workspace, Map<String, String> runValues, Set<String> runHcl) {
    return resolve(
        runValues,
        runHcl,
        new VariableSetView(workspace, false, 0, List.of()),
        List.of(),
        List.of());
  }

  /**
   * The run's variables.
   *
   * @param runValues the run's own Terraform variables (raw)
   * @param runHcl those of {@code runValues} that are HCL expressions
   * @param workspace the workspace's own variables, opened, at its version
   * @param attachedSets the sets attached to the workspace, opened (any order)
   * @param globalSets the tenant's global sets, opened (any order)
   */
  public static ResolvedVariables resolve(
      Map<String, String> runValues,
      Set<String> runHcl,
      VariableSetView workspace,
      List<VariableSetView> attachedSets,
      List<VariableSetView> globalSets) {
    Map<String, ResolvedVariable> chosen = new LinkedHashMap<>();
    Set<String> sensitive = new HashSet<>();
    Map<String, Long> versions = new LinkedHashMap<>();
    if (workspace.version() > 0) {
      versions.put("workspace", workspace.version());
    }
    VariableOrigin run = new VariableOrigin.Run();
    runValues.forEach(
        (k, v) ->
            chosen.put(
                id(VariableCategory.TERRAFORM, k),
                new ResolvedVariable(
                    k, VariableCategory.TERRAFORM, v, runHcl.contains(k), false, run)));
    offer(
        chosen,
        sensitive,
        workspace.variables(),
        new VariableOrigin.Workspace(workspace.version()));
    List<VariableSetView> global = new ArrayList<>(globalSets);
    List<VariableSetView> attached = new ArrayList<>();
    for (VariableSetView set : attachedSets) {
      (set.global() ? global : attached).add(set);
    }
    for (List<VariableSetView> sets : List.of(attached, global)) {
      sets.sort(Comparator.comparing(VariableSetView::name));
      for (VariableSetView set : sets) {
        if (versions.putIfAbsent("set:" + set.name(), set.version()) != null) {
          continue; // named twice: read once
        }
        offer(
            chosen,
            sensitive,
            set.variables(),
            new VariableOrigin.VariableSet(set.name(), set.global(), set.version()));
      }
    }
    List<ResolvedVariable> out = new ArrayList<>();
    chosen.forEach(
        (id, v) ->
            out.add(
                sensitive.contains(id) && !v.sensitive()
                    ? new ResolvedVariable(
                        v.key(), v.category(), v.value(), v.hcl(), true, v.origin())
                    : v));
    return new ResolvedVariables(out, versions);
  }

  /** Adds the variables not chosen yet; notes the sensitive ones that lost to a higher source. */
  private static void offer(
      Map<String, ResolvedVariable> chosen,
      Set<String> sensitive,
      List<StoredVariable> variables,
      VariableOrigin origin) {
    for (StoredVariable v : variables) {
      String id = id(v.category(), v.key());
      if (v.sensitive()) {
        sensitive.add(id);
      }
      chosen.putIfAbsent(
          id,
          new ResolvedVariable(
              v.key(),
              v.category(),
              v.value(),
              v.hcl() && v.category() == VariableCategory.TERRAFORM,
              v.sensitive(),
              origin));
    }
  }

  private static String id(VariableCategory category, String key) {
    return category.name() + "/" + key;
  }
}
