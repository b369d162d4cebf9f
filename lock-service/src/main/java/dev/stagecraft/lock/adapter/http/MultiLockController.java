package dev.stagecraft.lock.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.lock.adapter.LockService;
import dev.stagecraft.lock.lease.LockDecider.AcquireResult;
import dev.stagecraft.lock.lease.LockDecider.AllOrNothing;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.servicekit.http.ServiceAuth;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Locks for several workspaces of a tenant, taken all at once or none ({@code POST
 * /internal/v1/tenants/{tenant}/locks}), guarded by the service token. Each granted lock is an
 * ordinary workspace lock afterwards: heartbeat and release it per workspace.
 */
@Controller("/internal/v1/tenants/{tenant}/locks")
@ExecuteOn(TaskExecutors.BLOCKING)
public class MultiLockController {
  static final int MAX_WORKSPACES = 50;

  private final ServiceAuth auth;
  private final LockService locks;

  public MultiLockController(ServiceAuth auth, LockService locks) {
    this.auth = auth;
    this.locks = locks;
  }

  /**
   * {@code {"holder","workspaces":[...],"leaseSeconds":30,"waitSeconds":0,"info"}} → 200 {@code
   * {"locks":[{"workspace","lockId","fencingToken","leaseExpiresAt"}...]}} in sorted workspace
   * order, or 423 {@code {"granted":false,"blocked":[{"workspace","holder","lockId",
   * "queueLength"}...]}} when not all could be taken within {@code waitSeconds} — then none is
   * held.
   */
  @Post
  public HttpResponse<String> acquireAll(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      @Body @Nullable String body)
      throws SQLException, InterruptedException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    Names.check("tenant", tenant);
    JsonNode json = Json.object(body);
    String holder = Json.requiredText(json, "holder");
    JsonNode list = json.get("workspaces");
    if (list == null || !list.isArray() || list.isEmpty() || list.size() > MAX_WORKSPACES) {
      throw Problem.badRequest(
          "field 'workspaces' must be a list of 1 to " + MAX_WORKSPACES + " workspace names");
    }
    TreeSet<String> workspaces = new TreeSet<>();
    for (JsonNode ws : list) {
      if (!ws.isTextual()) {
        throw Problem.badRequest("field 'workspaces' must hold workspace names (strings)");
      }
      if (!workspaces.add(Names.check("workspace", ws.asText()))) {
        throw Problem.badRequest(
            "field 'workspaces' names '" + ws.asText() + "' twice: list each workspace once");
      }
    }
    long leaseSeconds =
        LockController.seconds(json, "leaseSeconds", 30, 1, LockController.MAX_LEASE_SECONDS);
    long waitSeconds =
        LockController.seconds(json, "waitSeconds", 0, 0, LockController.MAX_WAIT_SECONDS);
    String info = json.hasNonNull("info") ? json.get("info").asText() : null;
    AllOrNothing result =
        locks.acquireAll(
            tenant,
            workspaces,
            holder,
            Duration.ofSeconds(leaseSeconds),
            Duration.ofSeconds(waitSeconds),
            info);
    if (result.granted()) {
      List<Map<String, Object>> granted = new ArrayList<>();
      result
          .decisions()
          .forEach(
              (ws, d) -> {
                var lease = ((AcquireResult.Granted) d.result()).lease();
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("workspace", ws);
                out.put("lockId", lease.lockId());
                out.put("fencingToken", lease.fencingToken());
                out.put("leaseExpiresAt", lease.leaseExpiresAt().toString());
                granted.add(out);
              });
      return Json.respond(HttpStatus.OK, Map.of("locks", granted));
    }
    List<Map<String, Object>> blocked = new ArrayList<>();
    result
        .decisions()
        .forEach(
            (ws, d) -> {
              if (d.result() instanceof AcquireResult.Refused r) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("workspace", ws);
                out.put("holder", r.held() == null ? null : r.held().holder());
                out.put("lockId", r.held() == null ? null : r.held().lockId());
                out.put("queueLength", r.queueLength());
                blocked.add(out);
              }
            });
    return Json.respond(HttpStatus.valueOf(423), Map.of("granted", false, "blocked", blocked));
  }
}
