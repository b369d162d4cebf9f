package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.PlannerSettings;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /.well-known/stagecraft.json}: the base URL of every public API, so that clients need only
 * the planner's address. No authentication (it reveals addresses only).
 */
@Controller
public class DiscoveryController {
  private final PlannerSettings settings;

  public DiscoveryController(PlannerSettings settings) {
    this.settings = settings;
  }

  @Get("/.well-known/stagecraft.json")
  public Map<String, Object> discovery(HttpRequest<?> request) {
    String self =
        Optional.ofNullable(request.getHeaders().get("Host"))
            .map(h -> "http://" + h)
            .orElse("http://127.0.0.1:" + request.getServerAddress().getPort());
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("api_version", "v1");
    doc.put("runs", self + "/api/v1/runs");
    doc.put("plans", self + "/api/v1/plans");
    doc.put("workspaces", self + "/api/v1/workspaces");
    doc.put("known_hosts", self + "/api/v1/known-hosts");
    doc.put("run_requests_webhook", self + "/api/v1/hooks/run-requests");
    doc.put("state", settings.getPublicStateUrl() + "/api/v1");
    doc.put("locks", settings.getPublicLockUrl() + "/api/v1");
    doc.put("health", self + "/health");
    doc.put("console", self + "/console");
    doc.put("openapi", self + "/api/v1/openapi.yml");
    return doc;
  }
}
