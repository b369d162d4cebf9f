package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.run.intake.IdempotencyKey;
import dev.stagecraft.planner.service.run.intake.IntakeOutcome;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.view.RunReference;
import dev.stagecraft.planner.service.run.view.RunSummaryView;
import dev.stagecraft.planner.service.run.view.RunView;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * Runs: {@code POST /api/v1/runs} starts one (through the {@link RunIntake} chat-ops shares),
 * {@code GET /api/v1/runs} lists the tenant's, {@code GET /api/v1/runs/{id}} shows one ({@link
 * RunView}). Plans: {@link PlansController}; approve, discard and cancel: {@link
 * RunDecisionsController}; events and logs: {@link RunEventsController}.
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunsController {
  /**
   * How long a read of run records waits for this instance's pending records of live runs
   * (docs/adr/0025); normally they are written within milliseconds.
   */
  static final Duration RECORDS_WAIT = RunIntake.RECORDS_WAIT;

  /** Printable ASCII without spaces, 1-200 characters (as Stripe and the IETF draft allow). */
  static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[!-~]{1,200}");

  /** The header of a response that replays the run an earlier request with the key made. */
  static final String REPLAYED = "Idempotent-Replayed";

  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final RunIntake intake;
  private final RunStore runStore;
  // whether a run shown from its records was requested awaiting approval
  private final RunRequestStore runRequests;
  private final ConfigurationVersionStore configurationVersions;

  public RunsController(
      RunCoordinator coordinator,
      ApiAuth auth,
      RunIntake intake,
      RunStore runStore,
      RunRequestStore runRequests,
      ConfigurationVersionStore configurationVersions) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.intake = intake;
    this.runStore = runStore;
    this.runRequests = runRequests;
    this.configurationVersions = configurationVersions;
  }

  /**
   * Starts a run from inline {@code files} or from a {@code configurationVersion} id (not both),
   * with {@code variables} and a {@code message}: 201 the run. The run is recorded (planner.runs)
   * with its variables sealed (docs/runs.md); without {@code parallelism} the workspace's setting
   * applies.
   *
   * <p>With an {@code Idempotency-Key} header (printable ASCII, 1-200 characters) the request is
   * made at most once per tenant, workspace and key within the retention window ({@code
   * STAGECRAFT_PLANNER_IDEMPOTENCY_RETENTION}, 24h): a retry with the same body gets 200 with the
   * first run and {@code Idempotent-Replayed: true}; the same key with another body is 422. The key
   * is recorded (planner.run_request_keys) before the run starts.
   *
   * <p>On a workspace with {@code coalescing} on, the run's lock request carries a coalescing key
   * ({@code coalescingKey} of the body, else {@code default}): a newer run with the same key
   * replaces it while it waits in the lock queue (docs/adr/0023).
   */
  @Post("/runs")
  public HttpResponse<?> create(
      HttpRequest<?> request,
      @Body RunBody body,
      @Nullable @Header("Idempotency-Key") String idempotencyKey)
      throws SQLException {
    RunCallers.WriteAccess access = RunCallers.writer(auth, request, "start");
    if (access.refusal() != null) {
      return access.refusal();
    }
    Principal principal = access.principal();
    String tenant = principal.tenant();
    IdempotencyKey key = new IdempotencyKey.None();
    if (idempotencyKey != null) {
      if (!IDEMPOTENCY_KEY.matcher(idempotencyKey).matches()) {
        return problem(
            HttpStatus.BAD_REQUEST,
            "Invalid Idempotency-Key",
            "The Idempotency-Key header must be 1-200 printable ASCII characters without spaces"
                + " (e.g. a UUID); nothing was started.");
      }
      if (!body.namesWorkspace()) {
        return body.invalid();
      }
      // a retry is answered before anything else of it is looked at
      IdempotencyKey.Api api = new IdempotencyKey.Api(idempotencyKey, body.canonical());
      Optional<IntakeOutcome> replay = intake.replay(tenant, body.workspace(), api);
      if (replay.isPresent()) {
        return answer(tenant, replay.get());
      }
      key = api;
    }
    RunBody resolved = body;
    if (body.configurationVersion() != null) {
      if (body.files() != null && !body.files().isEmpty()) {
        return problem(
            HttpStatus.BAD_REQUEST,
            "Files and configuration version",
            "The request sends both \"files\" and \"configurationVersion\": send one of them.");
      }
      var version = configurationVersions.find(tenant, body.configurationVersion());
      if (version.isEmpty()) {
        return problem(
            HttpStatus.NOT_FOUND,
            "Not Found",
            "There is no configuration version "
                + body.configurationVersion()
                + ": upload it with POST /api/v1/configuration-versions.");
      }
      var content = version.get().content();
      resolved = body.withFiles(content.files(), content.supportFilesBase64());
    }
    HttpResponse<?> invalid = resolved.invalid();
    if (invalid != null) {
      return invalid;
    }
    Map<String, byte[]> supportFiles;
    try {
      supportFiles = UploadedFiles.decode(resolved.files(), resolved.supportFiles());
    } catch (UploadedFiles.InvalidUpload e) {
      return ApiProblems.invalidFiles(e);
    }
    HttpResponse<?> invalidKey = resolved.invalidCoalescingKey();
    if (invalidKey != null) {
      return invalidKey;
    }
    try {
      return answer(tenant, intake.accept(submission(principal, resolved, supportFiles, key)));
    } catch (RunIntakeBeans.RecordsUnavailable e) {
      throw e.sqlCause(); // answered as the database's unavailability
    }
  }

  private static Submission submission(
      Principal principal, RunBody body, Map<String, byte[]> supportFiles, IdempotencyKey key) {
    return new Submission(
        principal.tenant(),
        body.workspace(),
        body.files(),
        supportFiles,
        body.variables(),
        body.hcl(),
        Boolean.TRUE.equals(body.destroy()),
        body.replace(),
        body.expectedSerial(),
        body.expectedDigest(),
        body.parallelism(),
        body.coalescingKey(),
        RunCallers.name(principal),
        null,
        new Submission.Description(body.message(), body.configurationVersion()),
        key);
  }

  /** The HTTP answer to a submission's outcome. */
  private HttpResponse<?> answer(String tenant, IntakeOutcome outcome) throws SQLException {
    return switch (outcome) {
      case IntakeOutcome.Started s -> {
        // an accepted run is recorded before it is acknowledged (after a crash of this planner
        // the run is found); the run itself does not wait for this, only the answer does
        if (!s.recorded()) {
          LoggerFactory.getLogger(RunsController.class)
              .warn("run {} was accepted before its record was written", s.run().id());
        }
        yield HttpResponse.created(s.run().summary());
      }
      case IntakeOutcome.Replayed r ->
          HttpResponse.ok(replayed(tenant, r)).header(REPLAYED, "true");
      case IntakeOutcome.Refused r -> refused(r.reason());
    };
  }

  /** The run a replayed request made: live, else as recorded, else its id alone. */
  private Object replayed(String tenant, IntakeOutcome.Replayed r) throws SQLException {
    if (r.run().isPresent()) {
      return RunSummaryView.of(r.run().get().summary());
    }
    Optional<RunStore.RunRecord> recorded = runStore.find(tenant, r.runId());
    return recorded.isPresent()
        ? RecordedRunViews.summary(recorded.get())
        : new RunReference(r.runId());
  }

  private static HttpResponse<?> refused(IntakeOutcome.Refusal reason) {
    return switch (reason) {
      case IntakeOutcome.InvalidFiles f -> ApiProblems.invalidFiles(f.error());
      case IntakeOutcome.InvalidConfiguration c -> ApiProblems.diagnostics(c.check());
      case IntakeOutcome.KeyReused k ->
          problem(
              HttpStatus.UNPROCESSABLE_ENTITY,
              "Idempotency-Key reused",
              "Idempotency-Key '"
                  + k.key()
                  + "' was used for another request (run "
                  + k.runId()
                  + ") with a different body; nothing was started. Use a new key for a new"
                  + " request, or send exactly the first request's body to get its run.");
      case IntakeOutcome.KeyInUse u ->
          problem(
              HttpStatus.CONFLICT,
              "Idempotency-Key in use",
              "Another request with this Idempotency-Key is being handled; retry it.");
      case IntakeOutcome.KeyNotYetRecorded n ->
          throw new IllegalStateException("not an API key's refusal: " + n);
    };
  }

  /**
   * The tenant's runs as recorded (they survive restarts), newest first: 200 with a JSON array.
   * Filters {@code status} and {@code workspace}. Paging by cursor: with {@code size} (1-1000) at
   * most that many, and when there are more, header {@code X-Next-Cursor} (and {@code Link: <...>;
   * rel="next"}) names the next page: pass it as {@code cursor}. Without {@code size}, all matching
   * runs (as before paging existed).
   */
  @Get("/runs{?status,workspace,cursor,size}")
  public HttpResponse<?> list(
      HttpRequest<?> request,
      @Nullable @QueryValue String status,
      @Nullable @QueryValue String workspace,
      @Nullable @QueryValue String cursor,
      @Nullable @QueryValue Integer size)
      throws SQLException {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    if (status != null
        && Arrays.stream(RunStatus.values()).noneMatch(s -> s.wireName().equals(status))) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid status",
          "status '"
              + status
              + "' is unknown: use one of pending, queued, planning, planned,"
              + " planned_and_finished, applying, applied, errored, canceled, discarded.");
    }
    HttpResponse<?> outOfRange = RequestRanges.PAGE_SIZE.check(size);
    if (outOfRange != null) {
      return outOfRange;
    }
    RunStore.Cursor after;
    try {
      after = cursor == null ? null : RunStore.Cursor.decode(cursor);
    } catch (IllegalArgumentException e) {
      return problem(HttpStatus.BAD_REQUEST, "Invalid cursor", e.getMessage());
    }
    // read-your-writes: the records of this instance's live runs are written asynchronously
    coordinator.awaitAllRecorded(principal.get().tenant(), RECORDS_WAIT);
    RunStore.Page page =
        runStore.list(
            principal.get().tenant(),
            status,
            workspace,
            after,
            size == null ? Integer.MAX_VALUE : size);
    var response = HttpResponse.ok(page.items());
    if (page.nextCursor() != null) {
      StringBuilder next = new StringBuilder("/api/v1/runs?size=").append(size);
      if (status != null) {
        next.append("&status=").append(status);
      }
      if (workspace != null) {
        next.append("&workspace=").append(URLEncoder.encode(workspace, StandardCharsets.UTF_8));
      }
      next.append("&cursor=").append(page.nextCursor());
      response.header("X-Next-Cursor", page.nextCursor());
      response.header("Link", "<" + next + ">; rel=\"next\"");
    }
    return response;
  }

  /**
   * A run: live from the coordinator while this instance drives it (with its plan text), else as
   * recorded. Both carry the recorded fields (message, configuration version, variable names,
   * transitions). A live run also says whether it waits for approval now ({@code awaitingApproval},
   * and then until when: {@code approvalExpiresAt}); as recorded, it is false when the records can
   * tell (ended, approved, or requested without approval: {@link
   * RecordedRunViews#awaitingAsRecorded}) and absent otherwise (another instance drives the run,
   * and only it knows).
   */
  @Get("/runs/{id}")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String id) throws SQLException {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    String tenant = principal.get().tenant();
    coordinator.awaitRecorded(tenant, id, RECORDS_WAIT); // read-your-writes, as for list
    Optional<RunStore.RunRecord> recorded = runStore.find(tenant, id);
    Optional<Run> live = coordinator.find(tenant, id);
    if (recorded.isEmpty() && live.isEmpty()) {
      return ApiProblems.notFound(id);
    }
    RunView.Recorded records = recorded.map(RecordedRunViews::recorded).orElse(null);
    if (live.isPresent()) {
      // what a client needs to know to approve: a run that auto-applies never waits
      var deadline = coordinator.approvalDeadline(tenant, id).orElse(null);
      return HttpResponse.ok(
          RunView.live(live.get().summary(), deadline, records, transitions(tenant, id)));
    }
    RunStore.RunRecord r = recorded.get();
    Boolean awaiting =
        RecordedRunViews.awaitingAsRecorded(
                r.terminal(), r.approvedBy(), runRequests.awaitedApproval(tenant, id))
            .orElse(null);
    return HttpResponse.ok(
        RunView.recorded(RecordedRunViews.summary(r), records, awaiting, transitions(tenant, id)));
  }

  private List<RunView.Transition> transitions(String tenant, String id) throws SQLException {
    return RecordedRunViews.transitions(runStore.transitions(tenant, id));
  }
}
