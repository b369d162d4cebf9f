package dev.stagecraft.planner.service.workspace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which source's value a run uses for each variable (docs/workspaces.md): the run's own, then the
 * workspace's, then the variable sets attached to the workspace (the set whose name sorts first
 * wins), then the global sets (which may not define the same variable twice).
 */
public final class VariablePrecedence {
  private VariablePrecedence() {}

  /** Only the run's own values, all of them Terraform variables. */
  public static ResolvedVariables runOnly(
      String tenant, String workspace, Map<String, String> runValues, Set<String> runHcl) {
    List<ResolvedVariable> out = new ArrayList<>();
    runValues.forEach(
        (k, v) ->
            out.add(
                new ResolvedVariable(
                    k,
                    VariableCategory.TERRAFORM,
                    v,
                    runHcl.contains(k),
                    false,
                    new VariableOrigin.Run())));
    return new ResolvedVariables(out, Map.of());
  }
}
