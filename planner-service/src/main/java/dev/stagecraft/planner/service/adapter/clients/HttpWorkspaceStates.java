package dev.stagecraft.planner.service.adapter.clients;

import static dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceLocks.enc;

import dev.stagecraft.planner.service.run.WorkspaceStates;
import java.time.Duration;
import java.util.Map;

/** {@link WorkspaceStates} over state-service's internal HTTP API (docs/internal-api.md). */
public final class HttpWorkspaceStates implements WorkspaceStates {
  private final InternalHttp http;

  public HttpWorkspaceStates(InternalHttp http) {
    this.http = http;
  }

  @Override
  public String read(String tenant, String workspace) {
    InternalHttp.Response r = http.get(path(tenant, workspace) + "/state", Duration.ofSeconds(30));
    if (r.status() == 200) {
      return r.body();
    }
    if (r.status() == 204 || r.status() == 404) {
      return null;
    }
    throw new IllegalStateException("state-service answered " + r.status() + ": " + r.body());
  }

  @Override
  public void registerFencingToken(String tenant, String workspace, long token) {
    InternalHttp.Response r =
        http.post(
            path(tenant, workspace) + "/fencing", Map.of("token", token), Duration.ofSeconds(10));
    if (r.status() == 409) {
      throw new IllegalStateException(
          "fencing token " + token + " is older than one the state service has seen: " + r.body());
    }
    if (r.status() >= 300) {
      throw new IllegalStateException("state-service answered " + r.status() + ": " + r.body());
    }
  }

  private static String path(String tenant, String workspace) {
    return "/internal/v1/tenants/" + enc(tenant) + "/workspaces/" + enc(workspace);
  }
}
