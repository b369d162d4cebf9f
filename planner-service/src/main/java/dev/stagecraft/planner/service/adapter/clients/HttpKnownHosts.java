package dev.stagecraft.planner.service.adapter.clients;

import static dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceLocks.enc;

import dev.stagecraft.servicekit.http.InternalHttp;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tenant's host keys on state-service's internal API (docs/internal-api.md): list, add and
 * remove known hosts, list and remove a workspace's first-use keys. Answers are passed through as
 * they come (status and JSON body, problem+json on 400), for {@code KnownHostsController}.
 */
public final class HttpKnownHosts {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final InternalHttp http;

  public HttpKnownHosts(InternalHttp http) {
    this.http = http;
  }

  /** The tenant's known hosts, or with {@code workspace} also that workspace's first-use keys. */
  public InternalHttp.Response list(String tenant, String workspace) {
    return http.get(
        workspace == null
            ? tenantPath(tenant) + "/known-hosts"
            : tenantPath(tenant) + "/workspaces/" + enc(workspace) + "/host-keys",
        TIMEOUT);
  }

  public InternalHttp.Response add(
      String tenant, String host, Integer port, String publicKey, String actor) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("host", host);
    body.put("port", port);
    body.put("publicKey", publicKey);
    body.put("actor", actor);
    return http.post(tenantPath(tenant) + "/known-hosts", body, TIMEOUT);
  }

  /**
   * Removes the known hosts of host:port, or with {@code workspace} that workspace's first-use key
   * of host:port.
   */
  public InternalHttp.Response remove(
      String tenant, String workspace, String host, int port, String actor) {
    String query = "?host=" + enc(host) + "&port=" + port + "&actor=" + enc(actor);
    return http.delete(
        workspace == null
            ? tenantPath(tenant) + "/known-hosts" + query
            : tenantPath(tenant) + "/workspaces/" + enc(workspace) + "/host-keys" + query,
        TIMEOUT);
  }

  private static String tenantPath(String tenant) {
    return "/internal/v1/tenants/" + enc(tenant);
  }
}
