package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The tenant's variable sets (docs/workspaces.md): variables shared by the workspaces a set is
 * attached to, or by all of them when it is global. Reads need any role (no sensitive value ever,
 * no value at all for a reader); every change an admin. A set's view: {@code {"name",
 * "description","global","workspaces","version","variables"}}. The answers are {@link
 * VariablesApi}'s.
 */
@Controller("/api/v1/variable-sets")
@ExecuteOn(TaskExecutors.BLOCKING)
public class VariableSetsController {
  private final ApiAuth auth;
  private final VariablesApi api;

  public VariableSetsController(ApiAuth auth, VariablesApi api) {
    this.auth = auth;
    this.api = api;
  }

  /** The answer of an authenticated call. */
  @FunctionalInterface
  private interface Call {
    HttpResponse<?> answer(Principal caller) throws SQLException;
  }

  private HttpResponse<?> as(HttpRequest<?> request, Call call) throws SQLException {
    Optional<Principal> caller = auth.principal(request);
    return caller.isEmpty() ? ApiProblems.unauthorized() : call.answer(caller.get());
  }

  /** The tenant's sets by name: {@code {"variableSets":[...]}}. */
  @Get
  public HttpResponse<?> list(HttpRequest<?> request) throws SQLException {
    return as(request, api::listSets);
  }

  /** Creates an empty set ({@code {"name","description","global"}}): 201; 409 when it exists. */
  @Post
  public HttpResponse<?> create(HttpRequest<?> request, @Body @Nullable VariableSetBody body)
      throws SQLException {
    return as(request, caller -> api.createSet(caller, body));
  }

  @Get("/{name}")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String name)
      throws SQLException {
    return as(request, caller -> api.getSet(caller, name));
  }

  /** Changes the description or makes the set global (or not). */
  @Patch("/{name}")
  public HttpResponse<?> update(
      HttpRequest<?> request, @PathVariable String name, @Body @Nullable VariableSetBody body)
      throws SQLException {
    return as(request, caller -> api.patchSet(caller, name, body));
  }

  /** Deletes the set: its variables are unset (audited), it is detached everywhere. 204. */
  @Delete("/{name}")
  public HttpResponse<?> delete(HttpRequest<?> request, @PathVariable String name)
      throws SQLException {
    return as(request, caller -> api.deleteSet(caller, name));
  }

  /** Sets one of the set's variables: the variable. */
  @Put("/{name}/variables/{key}")
  public HttpResponse<?> setVariable(
      HttpRequest<?> request,
      @PathVariable String name,
      @PathVariable String key,
      @Body @Nullable VariableBody body)
      throws SQLException {
    return as(request, caller -> api.putSetVariable(caller, name, key, body));
  }

  /** Unsets one of the set's variables ({@code category} terraform, the default, or env): 204. */
  @Delete("/{name}/variables/{key}")
  public HttpResponse<?> unsetVariable(
      HttpRequest<?> request,
      @PathVariable String name,
      @PathVariable String key,
      @QueryValue @Nullable String category)
      throws SQLException {
    return as(request, caller -> api.deleteSetVariable(caller, name, key, category));
  }

  /** Attaches the set to a workspace: the set. */
  @Put("/{name}/workspaces/{ws}")
  public HttpResponse<?> attach(
      HttpRequest<?> request, @PathVariable String name, @PathVariable String ws)
      throws SQLException {
    return as(request, caller -> api.attach(caller, name, ws));
  }

  /** Detaches the set from a workspace: 204. */
  @Delete("/{name}/workspaces/{ws}")
  public HttpResponse<?> detach(
      HttpRequest<?> request, @PathVariable String name, @PathVariable String ws)
      throws SQLException {
    return as(request, caller -> api.detach(caller, name, ws));
  }

  /** Who changed which of the set's variables when, newest first (never a value). */
  @Get("/{name}/history")
  public HttpResponse<?> history(HttpRequest<?> request, @PathVariable String name)
      throws SQLException {
    return as(request, caller -> api.setHistory(caller, name));
  }
}
