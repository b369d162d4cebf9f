package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.planner.service.adapter.db.VariableStore.Owner;
import dev.stagecraft.planner.service.adapter.db.VariableStore.OwnerKind;
import dev.stagecraft.planner.service.workspace.ResolvedVariables;
import dev.stagecraft.planner.service.workspace.VariablePrecedence;
import dev.stagecraft.planner.service.workspace.VariableSetView;
import dev.stagecraft.planner.service.workspace.WorkspaceVariables;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link WorkspaceVariables} from the planner's database: the workspace's own variables, those of
 * the sets attached to it and of the tenant's global sets, read in one repeatable-read transaction
 * (one consistent view with its versions), sensitive values opened with the keyring in memory, and
 * merged under the run's own by {@link VariablePrecedence}. Thread-safe.
 */
public final class StoredWorkspaceVariables implements WorkspaceVariables {
  private final VariableStore variables;

  public StoredWorkspaceVariables(VariableStore variables) {
    this.variables = variables;
  }

  @Override
  public ResolvedVariables resolve(
      String tenant, String workspace, Map<String, String> runValues, Set<String> runHcl) {
    try {
      return variables.inTransaction(
          c -> {
            Sql.update(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            VariableSetView own =
                variables.open(c, new Owner(tenant, OwnerKind.WORKSPACE, workspace), false);
            List<VariableSetView> attached = new ArrayList<>();
            List<VariableSetView> global = new ArrayList<>();
            for (Map.Entry<String, Boolean> set :
                VariableSetStore.readBy(c, tenant, workspace).entrySet()) {
              VariableSetView view =
                  variables.open(c, new Owner(tenant, OwnerKind.SET, set.getKey()), set.getValue());
              (set.getValue() ? global : attached).add(view);
            }
            return VariablePrecedence.resolve(runValues, runHcl, own, attached, global);
          });
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Could not read the variables of workspace "
              + workspace
              + " from the planner's database: "
              + e.getMessage(),
          e);
    }
  }
}
