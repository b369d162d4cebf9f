package dev.stagecraft.planner.service.console;

import static dev.stagecraft.planner.service.console.ConsoleRunsController.encoded;
import static dev.stagecraft.planner.service.console.ConsoleSignInController.chrome;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore.Workspace;
import dev.stagecraft.planner.service.adapter.http.Access;
import dev.stagecraft.planner.service.adapter.http.KnownHostsController;
import dev.stagecraft.planner.service.adapter.http.WorkspaceResourcesController;
import dev.stagecraft.planner.service.console.PageModels.DiffView;
import dev.stagecraft.planner.service.console.PageModels.HostKeyRow;
import dev.stagecraft.planner.service.console.PageModels.Listed;
import dev.stagecraft.planner.service.console.PageModels.LockView;
import dev.stagecraft.planner.service.console.PageModels.MessagePage;
import dev.stagecraft.planner.service.console.PageModels.ResourceRow;
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
 * WorkspaceServices}); the resources in state from the state service with the session's token and
 * the known hosts from the API's {@link KnownHostsController}. Rollback, taint / untaint and host
 * key removal are {@link ConsoleWorkspaceChangesController}'s, on this page. Stateless;
 * thread-safe.
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
  private final KnownHostsController knownHosts;

  public ConsoleWorkspacesController(
      ConsoleAuth auth,
      ConsoleTemplates templates,
      WorkspaceResourcesController workspaces,
      WorkspaceServices services,
      KnownHostsController knownHosts) {
    this.auth = auth;
    this.templates = templates;
    this.workspaces = workspaces;
    this.services = services;
    this.knownHosts = knownHosts;
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
    return auth.onForm(
        request,
        form,
        templates,
        (caller, f) -> {
          Integer parallelism = number(f.get("parallelism"));
          Integer stepTimeout = number(f.get("stepTimeoutSeconds"));
          if (parallelism == null || stepTimeout == null) {
            return page(
                request,
                caller,
                ws,
                HttpStatus.BAD_REQUEST,
                "Could not save the settings: parallelism and step timeout must be whole"
                    + " numbers.");
          }
          HttpResponse<?> answer =
              workspaces.update(
                  caller.asApiRequest(request, HttpMethod.PATCH, apiPath(ws)),
                  ws,
                  new WorkspaceResourcesController.WorkspaceBody(
                      null,
                      f.containsKey("autoApply"),
                      parallelism,
                      f.containsKey("coalescing"),
                      stepTimeout));
          return afterAction(request, caller, ws, answer, "save the settings");
        });
  }

  /** Force-unlocks the workspace's lock with the reason given (required). */
  @Post("/{ws}/force-unlock")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> forceUnlock(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    return auth.onForm(
        request,
        form,
        templates,
        (caller, f) ->
            asAdmin(
                request,
                caller,
                ws,
                "force-unlock",
                "force a workspace's lock open",
                () -> {
                  String reason = f.getOrDefault("reason", "").strip();
                  String lockId = f.getOrDefault("lockId", "").strip();
                  if (reason.isEmpty() || lockId.isEmpty()) {
                    return page(
                        request,
                        caller,
                        ws,
                        HttpStatus.BAD_REQUEST,
                        reason.isEmpty()
                            ? "Could not force-unlock: say why the lock is forced open (a reason"
                                + " is required)."
                            : "Could not force-unlock: the page named no lock; reload it.");
                  }
                  return afterService(
                      request,
                      caller,
                      ws,
                      services.forceUnlock(caller.session().token(), ws, lockId, reason),
                      "force-unlock");
                }));
  }

  /** What an admin's change does once the workspace was shown to the caller. */
  interface AdminChange {
    HttpResponse<?> make() throws Exception;
  }

  /**
   * {@code change} for an admin of a workspace the API shows the caller's tenant: another tenant's
   * workspace is the API's 404, anyone but an admin a 403 page saying so, before anything changes.
   */
  HttpResponse<?> asAdmin(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      String ws,
      String verb,
      String what,
      AdminChange change)
      throws Exception {
    HttpResponse<?> shown = shownWorkspace(request, caller, ws);
    if (ApiAnswers.refused(shown)) {
      return notFound(caller, shown);
    }
    if (!caller.may(Access.Role.ADMIN)) {
      return page(
          request,
          caller,
          ws,
          HttpStatus.FORBIDDEN,
          "Could not " + verb + ": only an admin may " + what + ".");
    }
    return change.make();
  }

  /** The workspace page again after a service's answer: its refusal shown, else a redirect. */
  HttpResponse<?> afterService(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      String ws,
      InternalHttp.Response answer,
      String verb)
      throws Exception {
    if (answer.status() >= 400) {
      return page(
          request,
          caller,
          ws,
          HttpStatus.valueOf(answer.status()),
          "Could not " + verb + ": " + problemDetail(answer));
    }
    return HttpResponse.seeOther(URI.create("/console/workspaces/" + encoded(ws)));
  }

  /**
   * The workspace page again after an API controller's answer: its refusal shown, else a redirect.
   */
  HttpResponse<?> afterAction(
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
          HttpStatus.valueOf(answer.code()),
          "Could not " + what + ": " + ApiAnswers.detail(answer));
    }
    return HttpResponse.seeOther(URI.create("/console/workspaces/" + encoded(ws)));
  }

  /** The workspace page with {@code notice} (a refusal's reason; null for none). */
  HttpResponse<?> page(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      String ws,
      HttpStatus status,
      String notice)
      throws Exception {
    return page(request, caller, ws, null, null, status, notice);
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
    Listed<VersionRow> versions = stateVersions(request, caller, ws);
    DiffView diff = from == null || to == null ? null : diff(caller, ws, from, to);
    WorkspacePage page =
        new WorkspacePage(
            chrome(caller, "Workspace " + ws, "runs"),
            ws,
            WorkspacePages.settings(w),
            caller.may(Access.Role.ADMIN),
            lock(caller, ws),
            versions.rows(),
            versions.note(),
            diff,
            resources(caller, ws),
            hostKeys(request, caller, ws),
            notice);
    return templates.page(status, "workspace", page);
  }

  HttpResponse<?> shownWorkspace(HttpRequest<?> request, ConsoleAuth.Caller caller, String ws)
      throws Exception {
    return workspaces.get(caller.asApiRequest(request, HttpMethod.GET, apiPath(ws)), ws);
  }

  /** The state versions, newest first; none when the API refused to list them. */
  List<VersionRow> versions(HttpRequest<?> request, ConsoleAuth.Caller caller, String ws)
      throws Exception {
    return stateVersions(request, caller, ws).rows();
  }

  private Listed<VersionRow> stateVersions(
      HttpRequest<?> request, ConsoleAuth.Caller caller, String ws) throws Exception {
    HttpResponse<?> versions =
        workspaces.stateVersions(
            caller.asApiRequest(request, HttpMethod.GET, apiPath(ws) + "/state-versions"), ws);
    if (ApiAnswers.refused(versions)) {
      return Listed.unavailable(ApiAnswers.detail(versions));
    }
    if (versions.body() instanceof String json) {
      return Listed.of(WorkspacePages.versions(new InternalHttp.Response(200, json).json()));
    }
    return Listed.of(List.of());
  }

  /** The workspace's lock as the lock service shows it, or why it cannot be read. */
  LockView lock(ConsoleAuth.Caller caller, String ws) {
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

  private Listed<ResourceRow> resources(ConsoleAuth.Caller caller, String ws) {
    try {
      InternalHttp.Response answer = services.state(caller.session().token(), ws);
      if (answer.status() >= 400) {
        return Listed.unavailable("The state service answered: " + problemDetail(answer));
      }
      return Listed.of(WorkspacePages.resources(answer.status() == 204 ? null : answer.json()));
    } catch (InternalHttp.Unreachable e) {
      return Listed.unavailable("The state service cannot be reached now.");
    }
  }

  private Listed<HostKeyRow> hostKeys(
      HttpRequest<?> request, ConsoleAuth.Caller caller, String ws) {
    HttpResponse<?> answer =
        knownHosts.list(
            caller.asApiRequest(
                request, HttpMethod.GET, "/api/v1/known-hosts?workspace=" + encoded(ws)),
            ws);
    if (ApiAnswers.refused(answer) || !(answer.body() instanceof String json)) {
      return Listed.unavailable(ApiAnswers.detail(answer));
    }
    return Listed.of(WorkspacePages.hostKeys(new InternalHttp.Response(200, json).json()));
  }

  /** The diff between versions {@code from} and {@code to}, or why it could not be made. */
  DiffView diff(ConsoleAuth.Caller caller, String ws, long from, long to) {
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

  HttpResponse<?> notFound(ConsoleAuth.Caller caller, HttpResponse<?> answer) {
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
