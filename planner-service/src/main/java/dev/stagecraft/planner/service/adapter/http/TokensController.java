package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.InternalApis;
import dev.stagecraft.servicekit.http.InternalHttp;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The caller's tenant's API tokens ({@code /api/v1/tokens}, admin tokens only): create (the token
 * is in the response once and never again; the state service keeps its SHA-256), list without
 * secrets, revoke by id. A token revoked here stops working within the planner's verification cache
 * time (15 s).
 */
@Controller("/api/v1/tokens")
@ExecuteOn(TaskExecutors.BLOCKING)
public class TokensController {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Set<String> ROLES = Set.of("admin", "deployer", "reader");
  private final Access access;
  private final InternalHttp state;

  public TokensController(Access access, InternalApis apis) {
    this.access = access;
    this.state = apis.state();
  }

  /** The body of a token creation. */
  public record TokenBody(@Nullable String role, @Nullable String description) {}

  /** 201 {@code {"token","role","description"}}: the only time the token is shown. */
  @Post
  public HttpResponse<?> create(HttpRequest<?> request, @Body @Nullable TokenBody body) {
    Access.Decision d = access.require(request, Access.Role.ADMIN, "create tokens");
    if (d instanceof Access.Refused refused) {
      return refused.response();
    }
    Access.Allowed a = (Access.Allowed) d;
    String role = body == null ? null : body.role();
    if (role == null || !ROLES.contains(role)) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "Invalid role",
          "Role '"
              + role
              + "' is unknown: send {\"role\": \"admin\" | \"deployer\" | \"reader\"}.");
    }
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("role", role);
    if (body.description() != null) {
      req.put("description", body.description());
    }
    InternalHttp.Response r =
        state.post("/internal/v1/tenants/" + a.principal().tenant() + "/tokens", req, TIMEOUT);
    TenantsController.upstream(r);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("token", r.json().get("token").asText());
    out.put("role", role);
    out.put("description", body.description());
    return HttpResponse.created(out);
  }

  /** 200 {@code {"tokens":[{"id","role","description","createdAt","revokedAt"}]}}. */
  @Get
  public HttpResponse<?> list(HttpRequest<?> request) {
    Access.Decision d = access.require(request, Access.Role.ADMIN, "list tokens");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    String tenant = ((Access.Allowed) d).principal().tenant();
    InternalHttp.Response r = state.get("/internal/v1/tenants/" + tenant + "/tokens", TIMEOUT);
    TenantsController.upstream(r);
    return HttpResponse.ok(Map.of("tokens", r.json().get("tokens")));
  }

  /** Revokes the tenant's token with this id: 200, 404 when the tenant has no such token. */
  @Post("/{id}/revoke")
  public HttpResponse<?> revoke(HttpRequest<?> request, @PathVariable String id) {
    Access.Decision d = access.require(request, Access.Role.ADMIN, "revoke tokens");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    String tenant = ((Access.Allowed) d).principal().tenant();
    if (!id.matches("[0-9a-f]{16}")) {
      return ApiProblems.problem(
          HttpStatus.NOT_FOUND, "Not Found", "There is no token " + id + ".");
    }
    InternalHttp.Response r =
        state.post(
            "/internal/v1/tenants/" + tenant + "/tokens/" + id + "/revoke", Map.of(), TIMEOUT);
    if (r.status() == 404) {
      return ApiProblems.problem(
          HttpStatus.NOT_FOUND, "Not Found", "There is no token " + id + ".");
    }
    TenantsController.upstream(r);
    return HttpResponse.ok(Map.of("id", id, "revoked", true));
  }
}
