package dev.stagecraft.planner.service.adapter;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.WorkspaceSourceStore;
import dev.stagecraft.planner.service.adapter.git.JGitFetcher;
import dev.stagecraft.planner.service.source.GitFetcher;
import dev.stagecraft.planner.service.source.PushHook;
import dev.stagecraft.planner.service.source.PushRuns;
import dev.stagecraft.planner.service.source.WorkspaceSources;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;

/**
 * Wires configuration sources (docs/workspaces.md): the git fetcher and its cache under the
 * planner's data directory ({@code STAGECRAFT_PLANNER_DATA_DIR}, else the temp directory), the
 * workspaces' sources in the planner's database, and the push webhook. Until the run intake
 * provides its {@link PushRuns}, a push starts nothing and says so.
 */
@Factory
public class SourceBeans {

  @Singleton
  GitFetcher gitFetcher(
      @Value("${stagecraft.planner.data-dir:}") String dataDir,
      @Value("${stagecraft.planner.git-timeout-seconds:30}") int timeoutSeconds) {
    return new JGitFetcher(JGitFetcher.dataDirectory(dataDir), timeoutSeconds);
  }

  @Singleton
  WorkspaceSourceStore workspaceSources(HikariDataSource dataSource, SecretsKeyring keyring) {
    return new WorkspaceSourceStore(dataSource, Clock.systemUTC(), keyring);
  }

  @Singleton
  PushHook pushHook(TriggerSecrets secrets, WorkspaceSources sources, PushRuns runs) {
    return new PushHook(secrets, sources, runs);
  }
}
