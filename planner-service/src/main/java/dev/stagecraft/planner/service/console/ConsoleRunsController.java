package dev.stagecraft.planner.service.console;

import static dev.stagecraft.planner.service.console.ConsoleSignInController.chrome;

import dev.stagecraft.planner.service.adapter.db.RunStore.RunRecord;
import dev.stagecraft.planner.service.adapter.http.RunDecisionsController;
import dev.stagecraft.planner.service.adapter.http.RunEventsController;
import dev.stagecraft.planner.service.adapter.http.RunsController;
import dev.stagecraft.planner.service.console.PageModels.MessagePage;
import dev.stagecraft.planner.service.console.PageModels.RunPage;
import dev.stagecraft.planner.service.run.view.RunView;
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
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Hidden;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's run pages: the list (and its live part, polled every 2 s by the page), one run (its
 * live log is the API's resumable journal stream), and approve / discard / cancel. Each reads and
 * acts through the API's own controllers with the session's token ({@link
 * ConsoleAuth.Caller#asApiRequest}), so roles, tenancy (another tenant's run is 404) and forwarding
 * to the planner driving a run are the API's.
 */
@Hidden // pages for people, not part of the public API's OpenAPI document
@Controller("/console/runs")
@Produces(MediaType.TEXT_HTML) // the JSON default would refuse a fetch that accepts only HTML (406)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ConsoleRunsController {
  /** The most runs the list reads (and counts over). */
  static final int LIST_SIZE = 1000;

  private final ConsoleAuth auth;
  private final ConsoleTemplates templates;
  private final RunsController runs;
  private final RunEventsController events;
  private final RunDecisionsController decisions;

  public ConsoleRunsController(
      ConsoleAuth auth,
      ConsoleTemplates templates,
      RunsController runs,
      RunEventsController events,
      RunDecisionsController decisions) {
    this.auth = auth;
    this.templates = templates;
    this.runs = runs;
    this.events = events;
    this.decisions = decisions;
  }

  @Get
  public HttpResponse<?> list(
      HttpRequest<?> request,
      @Nullable @QueryValue String workspace,
      @Nullable @QueryValue String status)
      throws SQLException {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return signIn();
    }
    return templates.page(
        HttpStatus.OK, "runs", listPage(request, caller.get(), workspace, status));
  }

  /**
   * The list's live part (counts and rows), which the page fetches every 2 s. No URI template for
   * the query: with one, {@code /{id}} (one variable) would outrank this route.
   */
  @Get("/live")
  public HttpResponse<?> live(
      HttpRequest<?> request,
      @Nullable @QueryValue String workspace,
      @Nullable @QueryValue String status)
      throws SQLException {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.unauthorized();
    }
    var page = listPage(request, caller.get(), workspace, status);
    return ConsoleTemplates.secured(HttpResponse.ok(templates.render("runsLive", page)));
  }

  private PageModels.RunsPage listPage(
      HttpRequest<?> request, ConsoleAuth.Caller caller, String workspace, String status)
      throws SQLException {
    String ws = blankToNull(workspace);
    String st = blankToNull(status);
    HttpResponse<?> answer =
        runs.list(
            caller.asApiRequest(request, HttpMethod.GET, "/api/v1/runs"),
            null,
            null,
            null,
            LIST_SIZE);
    var chrome = chrome(caller, "Runs", "runs");
    if (ApiAnswers.refused(answer)) {
      return RunPages.list(chrome, ws, st, List.of(), ApiAnswers.detail(answer));
    }
    return RunPages.list(chrome, ws, st, ApiAnswers.list(answer, RunRecord.class), null);
  }

  @Get("/{id}")
  public HttpResponse<?> run(HttpRequest<?> request, @PathVariable String id) throws SQLException {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return signIn();
    }
    return runPage(request, caller.get(), id, HttpStatus.OK, null);
  }

  private HttpResponse<?> runPage(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      String id,
      HttpStatus status,
      String notice)
      throws SQLException {
    HttpResponse<?> answer =
        runs.get(caller.asApiRequest(request, HttpMethod.GET, "/api/v1/runs/" + encoded(id)), id);
    if (ApiAnswers.refused(answer) || !(answer.body() instanceof RunView view)) {
      return templates.page(
          HttpStatus.valueOf(answer.code()),
          "message",
          new MessagePage(
              chrome(caller, "Not found", "runs"),
              "Not found",
              ApiAnswers.detail(answer),
              "/console/runs"));
    }
    RunPage page =
        RunPages.run(chrome(caller, "Run " + id, "runs"), view, RunPages.mayDecide(caller), notice);
    return templates.page(status, "run", page);
  }

  /** The run's journal as Server-Sent Events, resumable with {@code Last-Event-ID}. */
  @Get(value = "/{id}/log", produces = MediaType.TEXT_EVENT_STREAM)
  public HttpResponse<?> log(
      HttpRequest<?> request,
      @PathVariable String id,
      @Nullable @Header("Last-Event-ID") String lastEventId) {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.unauthorized();
    }
    return events.logs(
        caller.get().asApiRequest(request, HttpMethod.GET, "/api/v1/runs/" + encoded(id) + "/logs"),
        id,
        lastEventId);
  }

  @Post("/{id}/approve")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> approve(
      HttpRequest<?> request, @PathVariable String id, @Nullable @Body Map<String, String> form)
      throws Exception {
    return decide(
        request,
        id,
        form,
        "approve",
        api ->
            decisions.approve(
                api,
                id,
                new RunDecisionsController.ApproveBody(
                    form == null ? null : form.get("planDigest"))));
  }

  @Post("/{id}/discard")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> discard(
      HttpRequest<?> request, @PathVariable String id, @Nullable @Body Map<String, String> form)
      throws Exception {
    return decide(request, id, form, "discard", api -> decisions.discard(api, id));
  }

  @Post("/{id}/cancel")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> cancel(
      HttpRequest<?> request, @PathVariable String id, @Nullable @Body Map<String, String> form)
      throws Exception {
    return decide(request, id, form, "cancel", api -> decisions.cancel(api, id));
  }

  /** A decision the API's controller takes as the caller; a refusal shown on the run's page. */
  private interface Decision {
    HttpResponse<?> take(HttpRequest<?> apiRequest) throws SQLException;
  }

  private HttpResponse<?> decide(
      HttpRequest<?> request, String id, Map<String, String> form, String verb, Decision decision)
      throws Exception {
    return auth.onForm(
        request,
        form,
        templates,
        (caller, f) -> {
          HttpResponse<?> answer =
              decision.take(
                  caller.asApiRequest(
                      request, HttpMethod.POST, "/api/v1/runs/" + encoded(id) + "/" + verb));
          if (answer.code() == 404) {
            return runPage(request, caller, id, HttpStatus.NOT_FOUND, null);
          }
          if (ApiAnswers.refused(answer)) {
            return runPage(
                request,
                caller,
                id,
                HttpStatus.valueOf(answer.code()),
                "Could not " + verb + ": " + ApiAnswers.detail(answer));
          }
          return HttpResponse.seeOther(URI.create("/console/runs/" + encoded(id)));
        });
  }

  private static HttpResponse<?> signIn() {
    return HttpResponse.seeOther(URI.create("/console/sign-in"));
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  static String encoded(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
