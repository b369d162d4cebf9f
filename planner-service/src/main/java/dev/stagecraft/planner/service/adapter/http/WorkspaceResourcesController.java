package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.PlannerSettings;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore.Workspace;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.net.URI;
import java.net.http.HttpClient;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;

/**
 * Workspaces of the caller's tenant and their settings ({@code /api/v1/workspaces}): create and
 * change settings (admin), list and get (any role), and the state versions of a workspace, read
 * from the state service with the caller's own token.
 */
@Controller("/api/v1/workspaces")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WorkspaceResourcesController {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Access access;
  private final WorkspaceStore workspaces;
  private final String stateUrl;

  public WorkspaceResourcesController(
      Access access, WorkspaceStore workspaces, PlannerSettings settings) {
    this.access = access;
    this.workspaces = workspaces;
    this.stateUrl = settings.getStateUrl();
  }

  /** A workspace creation or settings change; absent settings keep their (default) values. */
  public record WorkspaceBody(
      @Nullable String name,
      @Nullable Boolean autoApply,
      @Nullable Integer parallelism,
      @Nullable Boolean coalescing,
      @Nullable Integer stepTimeoutSeconds) {}

  /** 201 the workspace; 409 when the tenant has one of that name. */
  @Post
  public HttpResponse<?> create(HttpRequest<?> request, @Body @Nullable WorkspaceBody body)
      throws SQLException {
    Access.Decision d = access.require(request, Access.Role.ADMIN, "create workspaces");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    String tenant = ((Access.Allowed) d).principal().tenant();
    String name = body == null ? null : body.name();
    if (name == null || !ApiProblems.WORKSPACE.matcher(name).matches()) {
      return invalidName(name);
    }
    HttpResponse<?> invalid = checkRanges(body);
    if (invalid != null) {
      return invalid;
    }
    if (!workspaces.create(
        tenant,
        name,
        body.autoApply() == null || body.autoApply(),
        body.parallelism() == null ? 10 : body.parallelism(),
        Boolean.TRUE.equals(body.coalescing()),
        body.stepTimeoutSeconds() == null
            ? WorkspaceStore.DEFAULT_STEP_TIMEOUT_SECONDS
            : body.stepTimeoutSeconds())) {
      return ApiProblems.problem(
          HttpStatus.CONFLICT,
          "Workspace exists",
          "Workspace '" + name + "' exists already; change its settings with PATCH.");
    }
    return HttpResponse.created(workspaces.find(tenant, name).orElseThrow());
  }

  /** 200 {@code {"workspaces":[...]}} by name. */
  @Get
  public HttpResponse<?> list(HttpRequest<?> request) throws SQLException {
    Access.Decision d = access.require(request, Access.Role.READER, "list workspaces");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    return HttpResponse.ok(
        Map.of("workspaces", workspaces.list(((Access.Allowed) d).principal().tenant())));
  }

  @Get("/{ws}")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String ws) throws SQLException {
    Access.Decision d = access.require(request, Access.Role.READER, "read workspaces");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    return workspaces
        .find(((Access.Allowed) d).principal().tenant(), ws)
        .<HttpResponse<?>>map(HttpResponse::ok)
        .orElseGet(() -> notFound(ws));
  }

  /** Changes the settings sent (the name cannot change): 200 the workspace. */
  @Patch("/{ws}")
  public HttpResponse<?> update(
      HttpRequest<?> request, @PathVariable String ws, @Body @Nullable WorkspaceBody body)
      throws SQLException {
    Access.Decision d = access.require(request, Access.Role.ADMIN, "change workspace settings");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    String tenant = ((Access.Allowed) d).principal().tenant();
    if (workspaces.find(tenant, ws).isEmpty()) {
      return notFound(ws); // before looking at the body: another tenant's name is just unknown
    }
    if (body == null) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "No settings",
          "Send the settings to change, e.g. {\"autoApply\": false, \"parallelism\": 4,"
              + " \"stepTimeoutSeconds\": 1800}.");
    }
    if (body.name() != null && !body.name().equals(ws)) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "Cannot rename",
          "A workspace cannot be renamed; leave out \"name\" or send '" + ws + "'.");
    }
    HttpResponse<?> invalid = checkRanges(body);
    if (invalid != null) {
      return invalid;
    }
    Workspace updated =
        workspaces
            .update(
                tenant,
                ws,
                body.autoApply(),
                body.parallelism(),
                body.coalescing(),
                body.stepTimeoutSeconds())
            .orElseThrow();
    return HttpResponse.ok(updated);
  }

  /**
   * The workspace's state versions, as the state service lists them ({@code GET
   * /api/v1/workspaces/{ws}/state/versions} there), fetched with the caller's own token so the
   * state service applies its own tenant check.
   */
  @Get("/{ws}/state-versions")
  public HttpResponse<?> stateVersions(HttpRequest<?> request, @PathVariable String ws)
      throws Exception {
    Access.Decision d = access.require(request, Access.Role.READER, "read state versions");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    if (!ApiProblems.WORKSPACE.matcher(ws).matches()) {
      return notFound(ws);
    }
    var upstream =
        HTTP.send(
            java.net.http.HttpRequest.newBuilder(
                    URI.create(stateUrl + "/api/v1/workspaces/" + ws + "/state/versions"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", request.getHeaders().getAuthorization().orElseThrow())
                .GET()
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    if (upstream.statusCode() == 404) {
      return ApiProblems.problem(
          HttpStatus.NOT_FOUND,
          "Not Found",
          "Workspace '" + ws + "' has no state versions (it was never applied).");
    }
    return HttpResponse.status(HttpStatus.valueOf(upstream.statusCode()))
        .contentType(
            upstream.statusCode() / 100 == 2
                ? MediaType.APPLICATION_JSON
                : "application/problem+json")
        .body(upstream.body());
  }

  private static HttpResponse<?> checkRanges(WorkspaceBody body) {
    return RequestRanges.first(
        RequestRanges.PARALLELISM.check(body.parallelism()),
        RequestRanges.STEP_TIMEOUT_SECONDS.check(body.stepTimeoutSeconds()));
  }

  private static HttpResponse<?> invalidName(String name) {
    return ApiProblems.problem(
        HttpStatus.BAD_REQUEST,
        "Invalid workspace",
        "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
            + " digit; got "
            + name
            + ". Send {\"name\": \"production\"}.");
  }

  private static HttpResponse<?> notFound(String ws) {
    return ApiProblems.problem(
        HttpStatus.NOT_FOUND, "Not Found", "There is no workspace " + ws + ".");
  }
}
