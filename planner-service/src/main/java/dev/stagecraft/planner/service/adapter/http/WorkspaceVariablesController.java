package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.Optional;

/**
 * A workspace's own variables (docs/workspaces.md): list them (any role; no sensitive value ever,
 * no value at all for a reader), set and unset one (deployer or admin), and their audited history.
 * The answers are {@link VariablesApi}'s.
 */
@Controller("/api/v1/workspaces")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WorkspaceVariablesController {
  private final ApiAuth auth;
  private final VariablesApi api;

  public WorkspaceVariablesController(ApiAuth auth, VariablesApi api) {
    this.auth = auth;
    this.api = api;
  }

  /**
   * The workspace's variables: {@code {"workspace","version","variables":[{"key","category",
   * "hcl","sensitive","value","description","updatedAt","updatedBy"}]}}.
   */
  @Get("/{ws}/variables")
  public HttpResponse<?> list(HttpRequest<?> request, @PathVariable String ws) throws SQLException {
    Optional<Principal> caller = auth.principal(request);
    return caller.isEmpty() ? ApiProblems.unauthorized() : api.listWorkspace(caller.get(), ws);
  }

  /** Sets one variable (a workspace named for the first time is created): the variable. */
  @Put("/{ws}/variables/{key}")
  public HttpResponse<?> set(
      HttpRequest<?> request,
      @PathVariable String ws,
      @PathVariable String key,
      @Body @Nullable VariableBody body)
      throws SQLException {
    Optional<Principal> caller = auth.principal(request);
    return caller.isEmpty()
        ? ApiProblems.unauthorized()
        : api.putWorkspace(caller.get(), ws, key, body);
  }

  /** Unsets one variable ({@code category} terraform, the default, or env): 204. */
  @Delete("/{ws}/variables/{key}")
  public HttpResponse<?> unset(
      HttpRequest<?> request,
      @PathVariable String ws,
      @PathVariable String key,
      @QueryValue @Nullable String category)
      throws SQLException {
    Optional<Principal> caller = auth.principal(request);
    return caller.isEmpty()
        ? ApiProblems.unauthorized()
        : api.deleteWorkspace(caller.get(), ws, key, category);
  }

  /**
   * Who changed which variable when, newest first: {@code {"changes":[{"version","key",
   * "category","change","sensitive","by","at"}]}} (never a value).
   */
  @Get("/{ws}/variables/history")
  public HttpResponse<?> history(HttpRequest<?> request, @PathVariable String ws)
      throws SQLException {
    Optional<Principal> caller = auth.principal(request);
    return caller.isEmpty() ? ApiProblems.unauthorized() : api.workspaceHistory(caller.get(), ws);
  }
}
