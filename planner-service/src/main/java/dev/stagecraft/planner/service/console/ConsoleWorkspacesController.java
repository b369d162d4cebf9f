package dev.stagecraft.planner.service.console;

import static dev.stagecraft.planner.service.console.ConsoleRunsController.encoded;
import static dev.stagecraft.planner.service.console.ConsoleSignInController.chrome;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore.Workspace;
import dev.stagecraft.planner.service.adapter.http.Access;
import dev.stagecraft.planner.service.adapter.http.WorkspaceResourcesController;
import dev.stagecraft.planner.service.console.PageModels.DiffView;
import dev.stagecraft.planner.service.console.PageModels.LockView;
import dev.stagecraft.planner.service.console.PageModels.MessagePage;
import dev.stagecraft.planner.service.console.PageModels.VersionRow;
import dev.stagecraft.planner.service.console.PageModels.WorkspacePage;
import dev.stagecraft.servicekit.http.InternalHttp;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Hidden;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's workspace page: settings (a form for an admin, saved through the API's PATCH), the
 * lock, its lease and queue with force-unlock (a reason required), and the state versions with the
 * diff between any two. Settings and versions come from the API's own controller called with the
 * session's token (roles and another tenant's 404 are the API's); the lock, the diff and
 * force-unlock have no planner API and are asked of the lock and state services ({@link
 * WorkspaceServices}).
 */
@Hidden // pages for people, not part of the public API's OpenAPI document
@Controller("/console/workspaces")
@Produces(MediaType.TEXT_HTML)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ConsoleWorkspacesController {
  private final ConsoleAuth auth;
  private final ConsoleTemplates templates;
  private final WorkspaceResourcesController workspaces;
  private final WorkspaceServices services;

  public ConsoleWorkspacesController(
      ConsoleAuth auth,
      ConsoleTemplates templates,
      WorkspaceResourcesController workspaces,
      WorkspaceServices services) {
    this.auth = auth;
    this.templates = templates;
    this.workspaces = workspaces;
    this.services = services;
  }

  @Get("/{ws}")
  public HttpResponse<?> workspace(
      HttpRequest<?> request,
      @PathVariable String ws,
      @Nullable @QueryValue Long from,
      @Nullable @QueryValue Long to)
      throws Exception {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.seeOther(URI.create("/console/sign-in"));
    }
    return page(request, caller.get(), ws, from, to, HttpStatus.OK, null);
  }

  /** Saves the settings form through the API's PATCH (which refuses a non-admin). */
  @Post("/{ws}/settings")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> settings(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.unauthorized();
    }
    Map<String, String> f = form == null ? Map.of() : form;
    if (!caller.get().session().csrfMatches(f.get(ConsoleAuth.CSRF_FIELD))) {
      return ConsoleSignInController.forbiddenWithoutCsrf(templates, caller.get());
    }
    Integer parallelism = number(f.get("parallelism"));
    Integer stepTimeout = number(f.get("stepTimeoutSeconds"));
    if (parallelism == null || stepTimeout == null) {
      return page(
          request,
          caller.get(),
          ws,
          null,
          null,
          HttpStatus.BAD_REQUEST,
          "Could not save the settings: parallelism and step timeout must be whole numbers.");
    }
    HttpResponse<?> answer =
        workspaces.update(
            caller.get().asApiRequest(request, HttpMethod.PATCH, apiPath(ws)),
            ws,
            new WorkspaceResourcesController.WorkspaceBody(
                null,
                f.containsKey("autoApply"),
                parallelism,
                f.containsKey("coalescing"),
                stepTimeout));
    return afterAction(request, caller.get(), ws, answer, "save the settings");
  }

  /** Force-unlocks the workspace's lock with the reason given (required). */
  @Post("/{ws}/force-unlock")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> forceUnlock(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.unauthorized();
    }
    Map<String, String> f = form == null ? Map.of() : form;
    if (!caller.get().session().csrfMatches(f.get(ConsoleAuth.CSRF_FIELD))) {
      return ConsoleSignInController.forbiddenWithoutCsrf(templates, caller.get());
    }
    HttpResponse<?> shown = shownWorkspace(request, caller.get(), ws);
    if (ApiAnswers.refused(shown)) {
      return notFound(caller.get(), shown);
    }
    if (!caller.get().may(Access.Role.ADMIN)) {
      return page(
          request,
          caller.get(),
          ws,
          null,
          null,
          HttpStatus.FORBIDDEN,
          "Could not force-unlock: only an admin may force a workspace's lock open.");
    }
    String reason = f.getOrDefault("reason", "").strip();
    String lockId = f.getOrDefault("lockId", "").strip();
    if (reason.isEmpty() || lockId.isEmpty()) {
      return page(
          request,
          caller.get(),
          ws,
          null,
          null,
          HttpStatus.BAD_REQUEST,
          reason.isEmpty()
              ? "Could not force-unlock: say why the lock is forced open (a reason is required)."
              : "Could not force-unlock: the page named no lock; reload it.");
    }
    InternalHttp.Response answer =
        services.forceUnlock(caller.get().session().token(), ws, lockId, reason);
    if (answer.status() >= 400) {
      return page(
          request,
          caller.get(),
          ws,
          null,
          null,
          HttpStatus.valueOf(answer.status()),
          "Could not force-unlock: " + problemDetail(answer));
    }
    return HttpResponse.seeOther(URI.create("/console/workspaces/" + encoded(ws)));
  }

  private HttpResponse<?> afterAction(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      String ws,
      HttpResponse<?> answer,
      String what)
      throws Exception {
    if (ApiAnswers.refused(answer)) {
      return page(
          request,
          caller,
          ws,
          null,
          null,
          HttpStatus.valueOf(answer.code()),
          "Could not " + what + ": " + ApiAnswers.detail(answer));
    }
    return HttpResponse.seeOther(URI.create("/console/workspaces/" + encoded(ws)));
  }

  private HttpResponse<?> page(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      String ws,
      Long from,
      Long to,
      HttpStatus status,
      String notice)
      throws Exception {
    HttpResponse<?> shown = shownWorkspace(request, caller, ws);
    if (ApiAnswers.refused(shown) || !(shown.body() instanceof Workspace w)) {
      return notFound(caller, shown);
    }
    HttpResponse<?> versions =
        workspaces.stateVersions(
            caller.asApiRequest(request, HttpMethod.GET, apiPath(ws) + "/state-versions"), ws);
    List<VersionRow> rows = List.of();
    String versionsNote = null;
    if (ApiAnswers.refused(versions)) {
      versionsNote = ApiAnswers.detail(versions);
    } else if (versions.body() instanceof String json) {
      rows = WorkspacePages.versions(new InternalHttp.Response(200, json).json());
    }
    DiffView diff = from == null || to == null ? null : diff(caller, ws, from, to);
    WorkspacePage page =
        new WorkspacePage(
            chrome(caller, "Workspace " + ws, "runs"),
            ws,
            WorkspacePages.settings(w),
            caller.may(Access.Role.ADMIN),
            lock(caller, ws),
            rows,
            versionsNote,
            diff,
            notice);
    return templates.page(status, "workspace", page);
  }

  private HttpResponse<?> shownWorkspace(
      HttpRequest<?> request, ConsoleAuth.Caller caller, String ws) throws Exception {
    return workspaces.get(caller.asApiRequest(request, HttpMethod.GET, apiPath(ws)), ws);
  }

  private LockView lock(ConsoleAuth.Caller caller, String ws) {
    try {
      InternalHttp.Response answer = services.lock(caller.principal().tenant(), ws);
      if (answer.status() >= 400 || answer.json() == null) {
        return WorkspacePages.lockUnavailable(
            "The lock service answered " + answer.status() + ": " + problemDetail(answer));
      }
      return WorkspacePages.lock(answer.json());
    } catch (InternalHttp.Unreachable e) {
      return WorkspacePages.lockUnavailable("The lock service cannot be reached now.");
    }
  }

  private DiffView diff(ConsoleAuth.Caller caller, String ws, long from, long to) {
    try {
      InternalHttp.Response answer = services.diff(caller.session().token(), ws, from, to);
      if (answer.status() >= 400 || answer.json() == null) {
        return WorkspacePages.diffRefused(from, to, problemDetail(answer));
      }
      return WorkspacePages.diff(from, to, answer.json());
    } catch (InternalHttp.Unreachable e) {
      return WorkspacePages.diffRefused(from, to, "The state service cannot be reached now.");
    }
  }

  private HttpResponse<?> notFound(ConsoleAuth.Caller caller, HttpResponse<?> answer) {
    return templates.page(
        HttpStatus.valueOf(answer.code() >= 400 ? answer.code() : 404),
        "message",
        new MessagePage(
            chrome(caller, "Not found", "runs"),
            "Not found",
            ApiAnswers.detail(answer),
            "/console/runs"));
  }

  /** The problem document's detail of a service's answer, or its status. */
  static String problemDetail(InternalHttp.Response answer) {
    try {
      JsonNode json = answer.json();
      if (json != null && json.hasNonNull("detail")) {
        return json.get("detail").asText();
      }
    } catch (IllegalStateException e) {
      // not JSON: fall through to the status
    }
    return "the request was refused (HTTP " + answer.status() + ").";
  }

  private static Integer number(String s) {
    try {
      return s == null ? null : Integer.valueOf(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String apiPath(String ws) {
    return "/api/v1/workspaces/" + encoded(ws);
  }
}
