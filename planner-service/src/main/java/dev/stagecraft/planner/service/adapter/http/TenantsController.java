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
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tenants ({@code /api/v1/tenants}), kept by the state service: create (with a first admin token,
 * shown once) and list. Only admins of an operator tenant may use them (403 for everyone else).
 */
@Controller("/api/v1/tenants")
@ExecuteOn(TaskExecutors.BLOCKING)
public class TenantsController {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final Access access;
  private final InternalHttp state;

  public TenantsController(Access access, InternalApis apis) {
    this.access = access;
    this.state = apis.state();
  }

  /** The body of a tenant creation. */
  public record TenantBody(@Nullable String name) {}

  /**
   * Creates a tenant: 201 {@code {"tenant","token"}} (an admin token, shown only now); 409 taken.
   */
  @Post
  public HttpResponse<?> create(HttpRequest<?> request, @Body @Nullable TenantBody body) {
    if (access.requireOperator(request, "create tenants") instanceof Access.Refused r) {
      return r.response();
    }
    String name = body == null ? null : body.name();
    if (name == null || !ApiProblems.WORKSPACE.matcher(name).matches()) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "Invalid tenant",
          "A tenant name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or digit;"
              + " got "
              + name
              + ". Send {\"name\": \"team-a\"}.");
    }
    InternalHttp.Response list = state.get("/internal/v1/tenants", TIMEOUT);
    upstream(list);
    for (var t : list.json().get("tenants")) {
      if (t.asText().equals(name)) {
        return ApiProblems.problem(
            HttpStatus.CONFLICT,
            "Tenant exists",
            "Tenant '" + name + "' exists already; choose another name.");
      }
    }
    upstream(state.post("/internal/v1/tenants", Map.of("name", name), TIMEOUT));
    InternalHttp.Response token =
        state.post(
            "/internal/v1/tenants/" + name + "/tokens",
            Map.of("role", "admin", "description", "first admin token"),
            TIMEOUT);
    upstream(token);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("tenant", name);
    out.put("token", token.json().get("token").asText());
    return HttpResponse.created(out);
  }

  /** Every tenant's name: 200 {@code {"tenants":[...]}}. */
  @Get
  public HttpResponse<?> list(HttpRequest<?> request) {
    if (access.requireOperator(request, "list tenants") instanceof Access.Refused r) {
      return r.response();
    }
    InternalHttp.Response list = state.get("/internal/v1/tenants", TIMEOUT);
    upstream(list);
    return HttpResponse.ok(Map.of("tenants", list.json().get("tenants")));
  }

  static void upstream(InternalHttp.Response r) {
    if (r.status() / 100 != 2) {
      throw new IllegalStateException(
          "the state service answered " + r.status() + " to a tenant or token request");
    }
  }
}
