package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.db.HostKeyStore;
import dev.stagecraft.state.hostkey.HostKey;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Host key trust for the planner ({@code /internal/v1}, the planner's token only): the keys a run
 * must enforce, and the tenant's known hosts (list, add, remove) and first-use keys (remove). Every
 * path names its tenant, and every query is bounded by it. Bad input is a 400 that says what is
 * wrong; nothing is written then.
 */
@Controller("/internal/v1/tenants/{tenant}")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalHostKeyController {
  private final Authenticator auth;
  private final HostKeyStore keys;

  public InternalHostKeyController(Authenticator auth, HostKeyStore keys) {
    this.auth = auth;
    this.keys = keys;
  }

  /** The workspace's first-use keys and the tenant's known hosts: what a run must enforce. */
  @Get("/workspaces/{ws}/host-keys")
  public HttpResponse<String> keysFor(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant, String ws)
      throws SQLException {
    auth.requireService(authorization, Authenticator.PLANNER);
    return list(keys.keysFor(Names.check("tenant", tenant), Names.check("workspace", ws)));
  }

  /** Marks the workspace's first-use key for {@code host:port} removed. */
  @Delete("/workspaces/{ws}/host-keys")
  public HttpResponse<String> removeFirstUse(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @QueryValue @Nullable String host,
      @QueryValue @Nullable Integer port,
      @QueryValue @Nullable String actor)
      throws SQLException {
    auth.requireService(authorization, Authenticator.PLANNER);
    Names.check("tenant", tenant);
    Names.check("workspace", ws);
    return valid(() -> removed(keys.removeFirstUse(tenant, ws, host, portOf(port), actor)));
  }

  @Get("/known-hosts")
  public HttpResponse<String> knownHosts(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant)
      throws SQLException {
    auth.requireService(authorization, Authenticator.PLANNER);
    return list(keys.knownHosts(Names.check("tenant", tenant)));
  }

  /** Adds a known host: 201 with the key, or 200 when that key was known already. */
  @Post("/known-hosts")
  public HttpResponse<String> addKnownHost(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      @Body @Nullable String body)
      throws SQLException {
    auth.requireService(authorization, Authenticator.PLANNER);
    Names.check("tenant", tenant);
    JsonNode json = Json.object(body);
    String host = Json.requiredText(json, "host");
    String publicKey = Json.requiredText(json, "publicKey");
    JsonNode port = json.get("port");
    if (port != null && !port.isNull() && !port.isIntegralNumber()) {
      throw Problem.badRequest("field 'port' must be an integer 1-65535 (default 22)");
    }
    int p = port == null || port.isNull() ? 22 : port.asInt();
    String actor = json.hasNonNull("actor") ? json.get("actor").asText() : null;
    return valid(
        () -> {
          HostKeyStore.Added added = keys.addKnownHost(tenant, host, p, publicKey, actor);
          return Json.respond(
              added.created() ? HttpStatus.CREATED : HttpStatus.OK, toJson(added.key()));
        });
  }

  /** Marks the tenant's known hosts for {@code host:port} removed. */
  @Delete("/known-hosts")
  public HttpResponse<String> removeKnownHosts(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      @QueryValue @Nullable String host,
      @QueryValue @Nullable Integer port,
      @QueryValue @Nullable String actor)
      throws SQLException {
    auth.requireService(authorization, Authenticator.PLANNER);
    Names.check("tenant", tenant);
    return valid(() -> removed(keys.removeKnownHosts(tenant, host, portOf(port), actor)));
  }

  private interface Work {
    HttpResponse<String> run() throws SQLException;
  }

  /** Runs {@code work}, turning invalid host, port or key into a 400. */
  private static HttpResponse<String> valid(Work work) throws SQLException {
    try {
      return work.run();
    } catch (HostKey.Invalid e) {
      throw Problem.badRequest(e.getMessage());
    }
  }

  private static int portOf(Integer port) {
    return port == null ? 22 : port;
  }

  private static HttpResponse<String> list(List<HostKey> found) {
    return Json.respond(
        HttpStatus.OK,
        Map.of("keys", found.stream().map(InternalHostKeyController::toJson).toList()));
  }

  private static HttpResponse<String> removed(List<HostKey> removed) {
    return Json.respond(
        HttpStatus.OK,
        Map.of("removed", removed.stream().map(InternalHostKeyController::toJson).toList()));
  }

  static Map<String, Object> toJson(HostKey key) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("host", key.host());
    json.put("port", key.port());
    json.put("publicKey", key.publicKey());
    json.put("fingerprint", key.fingerprint());
    json.put("source", key.source());
    json.put("workspace", key.workspace());
    json.put("runId", key.runId());
    json.put("actor", key.actor());
    json.put("createdAt", key.createdAt().toString());
    json.put("origin", key.origin());
    return json;
  }
}
