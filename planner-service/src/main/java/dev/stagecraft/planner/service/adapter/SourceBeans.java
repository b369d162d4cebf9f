package dev.stagecraft.planner.service.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.clients.HttpKnownHosts;
import dev.stagecraft.planner.service.adapter.db.WorkspaceSourceStore;
import dev.stagecraft.planner.service.adapter.git.JGitFetcher;
import dev.stagecraft.planner.service.source.GitAddresses;
import dev.stagecraft.planner.service.source.GitFetcher;
import dev.stagecraft.planner.service.source.KnownGitHosts;
import dev.stagecraft.planner.service.source.PushHook;
import dev.stagecraft.planner.service.source.PushRuns;
import dev.stagecraft.planner.service.source.WorkspaceSources;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.http.InternalHttp;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Wires configuration sources (docs/workspaces.md): the git fetcher and its cache under the
 * planner's data directory ({@code STAGECRAFT_PLANNER_DATA_DIR}, else the temp directory), the
 * workspaces' sources in the planner's database, the push webhook, and the tenant's known hosts
 * (the state service's, ADR 0012) as the host keys an ssh git server must present.
 */
@Factory
public class SourceBeans {

  @Singleton
  GitFetcher gitFetcher(
      @Value("${stagecraft.planner.data-dir:}") String dataDir,
      @Value("${stagecraft.planner.git-timeout-seconds:30}") int timeoutSeconds,
      @Value("${stagecraft.planner.git-allowed-networks:}") String allowedNetworks,
      HttpKnownHosts knownHosts) {
    return new JGitFetcher(
        JGitFetcher.dataDirectory(dataDir),
        timeoutSeconds,
        knownGitHosts(knownHosts),
        GitAddresses.parse(allowedNetworks));
  }

  /** The public keys the tenant's known hosts hold for a host and port. */
  static KnownGitHosts knownGitHosts(HttpKnownHosts knownHosts) {
    return (tenant, host, port) -> {
      InternalHttp.Response r = knownHosts.list(tenant, null);
      if (r.status() != 200) {
        throw new IllegalStateException(
            "the tenant's known hosts could not be read (state service answered "
                + r.status()
                + ")");
      }
      List<String> keys = new ArrayList<>();
      for (JsonNode k : r.json().path("keys")) {
        if (host.equalsIgnoreCase(k.path("host").asText()) && port == k.path("port").asInt(22)) {
          keys.add(k.path("publicKey").asText());
        }
      }
      return keys;
    };
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
