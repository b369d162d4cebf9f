package dev.stagecraft.state.adapter.http;

import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Public endpoints ({@code /api/v1}). The tenant always comes from the API token, never from the
 * request, so a tenant can only ever see its own workspaces.
 */
@Controller("/api/v1/workspaces")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicStateController {
  private final Authenticator auth;
  private final StateStore states;

  public PublicStateController(Authenticator auth, StateStore states) {
    this.auth = auth;
    this.states = states;
  }

  @Get("/{ws}/state")
  public HttpResponse<String> state(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    WorkspaceState state = states.currentState(principal.tenant(), Names.check("workspace", ws));
    if (state.isEmpty()) {
      return HttpResponse.noContent();
    }
    return Json.respond(HttpStatus.OK, TerraformStateV4.render(state, state.lineage()));
  }

  @Get("/{ws}/state/events")
  public HttpResponse<String> events(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    List<Map<String, Object>> body =
        states.history(principal.tenant(), Names.check("workspace", ws)).stream()
            .map(
                e -> {
                  Map<String, Object> json = new LinkedHashMap<>();
                  json.put("sequence", e.sequence());
                  json.put("type", e.type());
                  json.put("runId", e.runId());
                  json.put("actionId", e.actionId());
                  json.put("address", e.address());
                  json.put("actor", e.actor());
                  json.put("time", e.time().toString());
                  return json;
                })
            .toList();
    return Json.respond(HttpStatus.OK, body);
  }
}
