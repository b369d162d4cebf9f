package dev.stagecraft.planner.service.workspace;

import java.util.Map;
import java.util.Set;

/**
 * The port through which a run reads the variables its workspace holds: the workspace's own, those
 * of the variable sets attached to it and the global sets, merged under the run's own by the
 * documented precedence (docs/workspaces.md). Sensitive values are opened here, in memory only.
 */
@FunctionalInterface
public interface WorkspaceVariables {
  /**
   * The run's variables: {@code runValues} (raw, those named in {@code runHcl} HCL expressions)
   * over the stored ones.
   *
   * @throws RuntimeException when they cannot be read or opened: nothing is started
   */
  ResolvedVariables resolve(
      String tenant, String workspace, Map<String, String> runValues, Set<String> runHcl);

  /** No stored variables: only the run's own. */
  WorkspaceVariables NONE = VariablePrecedence::runOnly;
}
