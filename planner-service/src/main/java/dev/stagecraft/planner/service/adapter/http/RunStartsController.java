package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.run.intake.IdempotencyKey;
import dev.stagecraft.planner.service.run.intake.IntakeOutcome;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.view.RunReference;
import dev.stagecraft.planner.service.run.view.RunSummaryView;
import dev.stagecraft.servicekit.tracing.TraceServerFilter;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.opentelemetry.context.Scope;
import java.sql.SQLException;
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
/**
 * {@code POST /api/v1/runs}: starts a run through the {@link RunIntake} chat-ops triggers share,
 * and renders its outcome (201 the run, 200 a replay of the run an {@code Idempotency-Key} made, or
 * a problem that says what to fix).
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunStartsController {
  /** Printable ASCII without spaces, 1-200 characters (as Stripe and the IETF draft allow). */
  static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[!-~]{1,200}");

  /** The header of a response that replays the run an earlier request with the key made. */
  static final String REPLAYED = "Idempotent-Replayed";

  private final ApiAuth auth;
  private final RunIntake intake;
  private final RunStore runStore;
  private final ConfigurationVersionStore configurationVersions;

  public RunStartsController(
      ApiAuth auth,
      RunIntake intake,
      RunStore runStore,
      ConfigurationVersionStore configurationVersions) {
    this.auth = auth;
    this.intake = intake;
    this.runStore = runStore;
    this.configurationVersions = configurationVersions;
  }

  /**
   * Starts a run from inline {@code files} or from a {@code configurationVersion} id (not both), or
   * — naming neither — from its workspace's configuration (its git source at {@code ref} or {@code
   * commit}, or the configuration version last uploaded to it; docs/workspaces.md), with {@code
   * variables} (over those the workspace holds) and a {@code message}: 201 the run. The run is
   * recorded (planner.runs) with its variables sealed (docs/runs.md); without {@code parallelism}
   * the workspace's setting applies.
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
    Map<String, byte[]> supportFiles = Map.of();
    if (!resolved.fromWorkspace()) {
      try {
        supportFiles = UploadedFiles.decode(resolved.files(), resolved.supportFiles());
      } catch (UploadedFiles.InvalidUpload e) {
        return ApiProblems.invalidFiles(e);
      }
    }
    HttpResponse<?> invalidKey = resolved.invalidCoalescingKey();
    if (invalidKey != null) {
      return invalidKey;
    }
    // the run's trace links this request's span as its trigger (docs/adr/0083)
    try (Scope traced = TraceServerFilter.spanOf(request).makeCurrent()) {
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
        key,
        body.fromWorkspace() ? new Submission.FromWorkspace(body.ref(), body.commit()) : null);
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
      case IntakeOutcome.NoConfiguration n ->
          problem(HttpStatus.UNPROCESSABLE_ENTITY, "No configuration", n.reason());
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
}
