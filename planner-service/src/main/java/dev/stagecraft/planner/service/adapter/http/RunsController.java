package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.plan.PlanRenderer;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.adapter.PlannerSettings;
import dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceStates;
import dev.stagecraft.planner.service.adapter.clients.InternalHttp;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunEvent;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.servicekit.http.Problem;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Runs and plans. {@code POST /api/v1/plans} plans synchronously without changing anything; {@code
 * POST /api/v1/runs} starts a run that plans under the workspace lock and applies. Followers read
 * {@code GET /api/v1/runs/{id}/events?after=N} (long poll).
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunsController {
  static final Pattern WORKSPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,89}");
  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final HttpWorkspaceStates states;

  public RunsController(RunCoordinator coordinator, ApiAuth auth, PlannerSettings settings) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.states =
        new HttpWorkspaceStates(
            new InternalHttp(settings.getStateUrl(), settings.getServiceToken()));
  }

  /** The body of a plan or run request. */
  public record RunBody(
      String workspace,
      Map<String, String> files,
      @Nullable Map<String, String> supportFiles,
      @Nullable Map<String, String> variables,
      @Nullable Boolean destroy,
      @Nullable List<String> replace,
      @Nullable Long expectedSerial,
      @Nullable String expectedDigest,
      @Nullable Integer parallelism) {}

  @Post("/plans")
  public HttpResponse<?> plan(HttpRequest<?> request, @Body RunBody body) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    HttpResponse<?> invalid = validate(body);
    if (invalid != null) {
      return invalid;
    }
    Map<String, byte[]> supportFiles;
    try {
      supportFiles = UploadedFiles.decode(body.files(), body.supportFiles());
    } catch (UploadedFiles.InvalidUpload e) {
      return invalidFiles(e);
    }
    PriorState prior =
        PriorState.fromV4Json(states.read(principal.get().tenant(), body.workspace()));
    PlanResult result;
    Path dir = null;
    try {
      dir = coordinator.uploads().materialise(principal.get().tenant(), body.files(), supportFiles);
      result = Planner.plan(planRequest(body, dir), prior);
    } catch (UploadedFiles.InvalidUpload e) {
      return invalidFiles(e);
    } finally {
      // nothing reads the files after a plan: only a run's apply context does, later
      UploadedFiles.delete(dir);
    }
    if (result.hasErrors()) {
      return diagnostics(result);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("workspace", body.workspace());
    out.put("prior_serial", prior.serial());
    out.put("has_changes", result.plan().hasChanges());
    out.put("digest", result.plan().digest());
    out.put("plan", PlanJson.toMap(result.plan()));
    out.put("rendered", PlanRenderer.render(result.plan()));
    return HttpResponse.ok(out);
  }

  @Post("/runs")
  public HttpResponse<?> create(HttpRequest<?> request, @Body RunBody body) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    if ("reader".equals(principal.get().role())) {
      return problem(
          HttpStatus.FORBIDDEN,
          "Forbidden",
          "A reader token cannot start runs; use a deployer token.");
    }
    HttpResponse<?> invalid = validate(body);
    if (invalid != null) {
      return invalid;
    }
    Map<String, byte[]> supportFiles;
    try {
      supportFiles = UploadedFiles.decode(body.files(), body.supportFiles());
    } catch (UploadedFiles.InvalidUpload e) {
      return invalidFiles(e);
    }
    // fail fast on configuration errors, before queueing for the lock
    PlanResult check;
    Path dir = null;
    try {
      dir = coordinator.uploads().materialise(principal.get().tenant(), body.files(), supportFiles);
      check = Planner.plan(planRequest(body, dir), PriorState.empty());
    } catch (UploadedFiles.InvalidUpload e) {
      return invalidFiles(e);
    } finally {
      UploadedFiles.delete(dir);
    }
    if (check.diagnostics().hasErrors()) {
      return diagnostics(check);
    }
    Run run =
        coordinator.start(
            new RunRequest(
                principal.get().tenant(),
                body.workspace(),
                body.files(),
                supportFiles,
                body.variables(),
                Boolean.TRUE.equals(body.destroy()),
                body.replace(),
                body.expectedSerial(),
                body.expectedDigest(),
                principal.get().role() + "@" + principal.get().tenant(),
                body.parallelism() == null ? 10 : body.parallelism()));
    return HttpResponse.created(run.summary());
  }

  @Get("/runs")
  public HttpResponse<?> list(HttpRequest<?> request) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    return HttpResponse.ok(
        coordinator.runsOf(principal.get().tenant()).stream()
            .map(Run::summary)
            .sorted(Comparator.comparing(Run.RunSummary::createdAt).reversed())
            .toList());
  }

  @Get("/runs/{id}")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String id) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    return coordinator
        .find(principal.get().tenant(), id)
        .<HttpResponse<?>>map(run -> HttpResponse.ok(run.summary()))
        .orElseGet(() -> notFound(id));
  }

  /**
   * Cancels a run: before it applies it ends {@code canceled} at once; while it applies nothing
   * more is dispatched, running actions are stopped, and it ends {@code canceled} once they have
   * reported (202 with the run; follow its events for the end). A terminal run is left as it is.
   */
  @Post("/runs/{id}/cancel")
  public HttpResponse<?> cancel(HttpRequest<?> request, @PathVariable String id) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    if ("reader".equals(principal.get().role())) {
      return problem(
          HttpStatus.FORBIDDEN,
          "Forbidden",
          "A reader token cannot cancel runs; use a deployer token.");
    }
    return coordinator
        .cancel(
            principal.get().tenant(), id, principal.get().role() + "@" + principal.get().tenant())
        .<HttpResponse<?>>map(run -> HttpResponse.accepted().body(run.summary()))
        .orElseGet(() -> notFound(id));
  }

  @Get("/runs/{id}/events")
  public HttpResponse<?> events(
      HttpRequest<?> request,
      @PathVariable String id,
      @QueryValue(defaultValue = "0") long after,
      @QueryValue(defaultValue = "10") int wait)
      throws InterruptedException {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    Optional<Run> run = coordinator.find(principal.get().tenant(), id);
    if (run.isEmpty()) {
      return notFound(id);
    }
    List<RunEvent> events =
        run.get().journal().after(after, Duration.ofSeconds(Math.min(Math.max(wait, 0), 30)));
    Run.RunSummary summary = run.get().summary();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("events", events);
    out.put("status", summary.status());
    out.put("terminal", summary.terminal());
    return HttpResponse.ok(out);
  }

  /**
   * The public API's problem documents: typed by title (a page under stagecraft.dev) and without
   * {@code WWW-Authenticate}, since the API takes a bearer token or basic auth alike.
   */
  static HttpResponse<String> problem(HttpStatus status, String title, String detail) {
    return problem(status, title, detail, null);
  }

  private static HttpResponse<String> problem(
      HttpStatus status, String title, String detail, List<Object> diagnostics) {
    return new Problem(Problem.typeFor(title), status.getCode(), title, detail, diagnostics)
        .response();
  }

  static HttpResponse<String> unauthorized() {
    return problem(
        HttpStatus.UNAUTHORIZED,
        "Unauthorized",
        "A valid API token is required: send it as 'Authorization: Bearer <token>'"
            + " (stagecraft env prints the dev stack's).");
  }

  private static HttpResponse<?> notFound(String id) {
    return problem(HttpStatus.NOT_FOUND, "Not Found", "There is no run " + id + ".");
  }

  /** Planned with the uploaded files in {@code dir}, and file access confined to it. */
  private static PlanRequest planRequest(RunBody body, Path dir) {
    return new PlanRequest(
        body.workspace(),
        body.files(),
        body.variables(),
        body.replace(),
        Boolean.TRUE.equals(body.destroy()),
        dir,
        true);
  }

  private static HttpResponse<?> invalidFiles(UploadedFiles.InvalidUpload e) {
    return problem(HttpStatus.BAD_REQUEST, "Invalid files", e.getMessage());
  }

  private static HttpResponse<?> validate(RunBody body) {
    if (body.workspace() == null || !WORKSPACE.matcher(body.workspace()).matches()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid workspace",
          "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit; got "
              + body.workspace()
              + ".");
    }
    if (body.files() == null || body.files().isEmpty()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "No configuration",
          "The request has no configuration files: send them as \"files\": {\"main.tf\": \"...\"}.");
    }
    return null;
  }

  private static HttpResponse<?> diagnostics(PlanResult result) {
    List<Object> list =
        result.diagnostics().list().stream()
            .map(
                d -> {
                  Map<String, Object> m = new LinkedHashMap<>();
                  m.put("severity", d.severity().name().toLowerCase());
                  m.put("summary", d.summary());
                  m.put("detail", d.detail());
                  m.put("range", d.range() == null ? null : d.range().toString());
                  return (Object) m;
                })
            .toList();
    return problem(
        HttpStatus.UNPROCESSABLE_ENTITY, "Invalid configuration", result.renderDiagnostics(), list);
  }
}
