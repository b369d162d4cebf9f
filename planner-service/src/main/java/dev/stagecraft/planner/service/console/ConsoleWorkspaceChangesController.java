package dev.stagecraft.planner.service.console;

import static dev.stagecraft.planner.service.console.ConsoleRunsController.encoded;
import static dev.stagecraft.planner.service.console.ConsoleSignInController.chrome;

import dev.stagecraft.planner.service.adapter.http.KnownHostsController;
import dev.stagecraft.planner.service.adapter.http.WorkspacesController;
import dev.stagecraft.planner.service.console.PageModels.DiffView;
import dev.stagecraft.planner.service.console.PageModels.LockView;
import dev.stagecraft.planner.service.console.PageModels.RollbackPage;
import dev.stagecraft.planner.service.console.PageModels.VersionRow;
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
 * The workspace page's changes to state, for admins only (checked here before anything is asked,
 * and again by the service that makes the change): rollback to a state version (a confirmation page
 * showing what it changes first; the state service's rollback under the workspace lock, with the
 * session's token), taint / untaint of a resource instance (the API's own {@link
 * WorkspacesController}) and removal of a known host or a key trusted on first use (the API's
 * {@link KnownHostsController}). Every POST passes {@link ConsoleAuth#onForm} (session, CSRF).
 * Stateless; thread-safe.
 */
@Hidden // pages for people, not part of the public API's OpenAPI document
@Controller("/console/workspaces")
@Produces(MediaType.TEXT_HTML)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ConsoleWorkspaceChangesController {
  private final ConsoleAuth auth;
  private final ConsoleTemplates templates;
  private final ConsoleWorkspacesController pages;
  private final WorkspaceServices services;
  private final WorkspacesController taints;
  private final KnownHostsController knownHosts;

  public ConsoleWorkspaceChangesController(
      ConsoleAuth auth,
      ConsoleTemplates templates,
      ConsoleWorkspacesController pages,
      WorkspaceServices services,
      WorkspacesController taints,
      KnownHostsController knownHosts) {
    this.auth = auth;
    this.templates = templates;
    this.pages = pages;
    this.services = services;
    this.taints = taints;
    this.knownHosts = knownHosts;
  }

  /** Asks an admin to confirm rolling back to {@code serial}, showing what that changes. */
  @Get("/{ws}/rollback")
  public HttpResponse<?> confirmRollback(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @QueryValue Long serial)
      throws Exception {
    Optional<ConsoleAuth.Caller> found = auth.caller(request);
    if (found.isEmpty()) {
      return HttpResponse.seeOther(URI.create("/console/sign-in"));
    }
    ConsoleAuth.Caller caller = found.get();
    return pages.asAdmin(
        request,
        caller,
        ws,
        "roll back",
        "roll a workspace's state back",
        () -> {
          if (serial == null) {
            return pages.page(
                request,
                caller,
                ws,
                HttpStatus.BAD_REQUEST,
                "Could not roll back: pick the version to roll back to.");
          }
          List<VersionRow> versions = pages.versions(request, caller, ws);
          String current = versions.isEmpty() ? "" : versions.get(0).serial();
          DiffView changes =
              current.isEmpty()
                  ? WorkspacePages.diffRefused(0, serial, "The workspace has no state versions.")
                  : pages.diff(caller, ws, Long.parseLong(current), serial);
          return templates.page(
              HttpStatus.OK,
              "rollback",
              new RollbackPage(
                  chrome(caller, "Roll back " + ws, "runs"),
                  ws,
                  Long.toString(serial),
                  current,
                  changes));
        });
  }

  /**
   * Rolls the workspace back to the version the confirmation named: the state service writes it
   * again with the next serial, under the workspace lock this takes (a held lock is refused, with
   * its holder; nothing waits).
   */
  @Post("/{ws}/rollback")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> rollback(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    return auth.onForm(
        request,
        form,
        templates,
        (caller, f) ->
            pages.asAdmin(
                request,
                caller,
                ws,
                "roll back",
                "roll a workspace's state back",
                () -> {
                  String serial = f.getOrDefault("serial", "").strip();
                  if (!serial.matches("\\d{1,18}")) {
                    return pages.page(
                        request,
                        caller,
                        ws,
                        HttpStatus.BAD_REQUEST,
                        "Could not roll back: the form named no state version; reload the page.");
                  }
                  InternalHttp.Response answer;
                  try {
                    answer =
                        services.rollback(caller.session().token(), ws, Long.parseLong(serial));
                  } catch (InternalHttp.Unreachable e) {
                    return pages.page(
                        request,
                        caller,
                        ws,
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "Could not roll back: the state service cannot be reached now; the"
                            + " versions below say whether it happened.");
                  }
                  if (answer.status() == 423) {
                    return locked(request, caller, ws, "roll back");
                  }
                  return pages.afterService(request, caller, ws, answer, "roll back");
                }));
  }

  /** Marks a resource instance tainted (the next plan replaces it), through the API. */
  @Post("/{ws}/taint")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> taint(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    return changeTaint(request, ws, form, true);
  }

  /** Clears a resource instance's taint, through the API. */
  @Post("/{ws}/untaint")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> untaint(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    return changeTaint(request, ws, form, false);
  }

  /**
   * Stops trusting a host key: one of the tenant's known hosts ({@code scope=tenant}) or the key
   * this workspace trusted on first use ({@code scope=workspace}; its next run trusts the host's
   * key on first use again), through the API.
   */
  @Post("/{ws}/known-hosts/remove")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> removeHostKey(
      HttpRequest<?> request, @PathVariable String ws, @Nullable @Body Map<String, String> form)
      throws Exception {
    return auth.onForm(
        request,
        form,
        templates,
        (caller, f) ->
            pages.asAdmin(
                request,
                caller,
                ws,
                "remove the host key",
                "change which host keys are trusted",
                () -> {
                  Integer port = portOf(f.get("port"));
                  if (port == null) {
                    return pages.page(
                        request,
                        caller,
                        ws,
                        HttpStatus.BAD_REQUEST,
                        "Could not remove the host key: the form named no port; reload the page.");
                  }
                  String scope = f.getOrDefault("scope", "");
                  String workspace = "workspace".equals(scope) ? ws : null;
                  HttpResponse<?> answer =
                      knownHosts.remove(
                          caller.asApiRequest(request, HttpMethod.DELETE, "/api/v1/known-hosts"),
                          f.get("host"),
                          port,
                          workspace);
                  return pages.afterAction(request, caller, ws, answer, "remove the host key");
                }));
  }

  private HttpResponse<?> changeTaint(
      HttpRequest<?> request, String ws, Map<String, String> form, boolean tainted)
      throws Exception {
    String verb = tainted ? "taint" : "untaint";
    return auth.onForm(
        request,
        form,
        templates,
        (caller, f) ->
            pages.asAdmin(
                request,
                caller,
                ws,
                verb,
                verb + " a resource instance",
                () -> {
                  // the API waits for a held lock; a page should not hang while a run holds it
                  LockView lock = pages.lock(caller, ws);
                  if (lock.held()) {
                    return locked(request, caller, ws, verb);
                  }
                  HttpRequest<?> api =
                      caller.asApiRequest(
                          request,
                          HttpMethod.POST,
                          "/api/v1/workspaces/" + encoded(ws) + "/" + verb);
                  var body = new WorkspacesController.TaintBody(f.get("address"));
                  HttpResponse<?> answer =
                      tainted ? taints.taint(api, ws, body) : taints.untaint(api, ws, body);
                  return pages.afterAction(request, caller, ws, answer, verb);
                }));
  }

  private HttpResponse<?> locked(
      HttpRequest<?> request, ConsoleAuth.Caller caller, String ws, String verb) throws Exception {
    return pages.page(
        request,
        caller,
        ws,
        HttpStatus.CONFLICT,
        "Could not "
            + verb
            + ": the workspace is locked (see Lock below); try again once it is released.");
  }

  private static Integer portOf(String s) {
    try {
      return s == null ? null : Integer.valueOf(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
