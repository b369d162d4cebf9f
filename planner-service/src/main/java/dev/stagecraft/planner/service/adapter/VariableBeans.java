package dev.stagecraft.planner.service.adapter;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.StoredWorkspaceVariables;
import dev.stagecraft.planner.service.adapter.db.VariableSetStore;
import dev.stagecraft.planner.service.adapter.db.VariableStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.adapter.http.VariablesApi;
import dev.stagecraft.planner.service.workspace.WorkspaceVariables;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/**
 * Wires workspace variables and variable sets (docs/workspaces.md): their stores, sealing sensitive
 * values with the planner's keyring, the API's answers, and the {@link WorkspaceVariables} a run's
 * intake reads them through.
 */
@Factory
public class VariableBeans {

  @Singleton
  VariableStore variableStore(HikariDataSource dataSource, SecretsKeyring keyring) {
    return new VariableStore(dataSource, Clock.systemUTC(), keyring);
  }

  @Singleton
  VariableSetStore variableSetStore(HikariDataSource dataSource, VariableStore variables) {
    return new VariableSetStore(dataSource, Clock.systemUTC(), variables);
  }

  /** The workspace's stored variables under a run's own (ADR 0078). */
  @Singleton
  WorkspaceVariables workspaceVariables(VariableStore variables) {
    return new StoredWorkspaceVariables(variables);
  }

  @Singleton
  VariablesApi variablesApi(
      VariableStore variables, VariableSetStore sets, WorkspaceStore workspaces) {
    return new VariablesApi(variables, sets, workspaces);
  }
}
