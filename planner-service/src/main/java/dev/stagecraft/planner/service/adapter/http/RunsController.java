package dev.stagecraft.planner.service.adapter.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.plan.PlanRenderer;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceStates;
import dev.stagecraft.planner.service.adapter.clients.InternalApis;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.RunJournalFollowers;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunRequestKeyStore;
import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.run.PreparedConfiguration;
import dev.stagecraft.planner.service.run.RemoteStateReads;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunEvent;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Problem;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.inject.Inject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * Runs and plans. {@code POST /api/v1/plans} plans synchronously without changing anything; {@code
 * POST /api/v1/runs} starts a run that plans under the workspace lock and applies. Followers read
 * {@code GET /api/v1/runs/{id}/logs} (Server-Sent Events, resumable with {@code Last-Event-ID}) or
 * {@code GET /api/v1/runs/{id}/events?after=N} (long poll).
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunsController {
  static final Pattern WORKSPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,89}");

  /**
   * How long a read of run records waits for this instance's pending records of live runs
   * (docs/adr/0025); normally they are written within milliseconds.
   */
  static final Duration RECORDS_WAIT = Duration.ofSeconds(5);

  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final HttpWorkspaceStates states;

  // field-injected: the records of runs, workspaces and configuration versions (adapter/db)
  @Inject RunStore runStore;
  // every run's recorded journal: logs of runs another instance drives (docs/adr/0032)
  @Inject RunJournalStore runJournal;

  /** Wakes the followers of recorded journals (docs/adr/0037). */
  @Inject RunJournalFollowers runLogFollowers;

  @Inject WorkspaceStore workspaceStore;
  // whether a run shown from its records was requested awaiting approval
  @Inject RunRequestStore runRequests;
  // cancel, approve and discard of runs another instance drives (docs/adr/0050)
  @Inject RunForwarding forwarding;
  @Inject ConfigurationVersionStore configurationVersions;
  @Inject HikariDataSource dataSource;
  // opens the sealed attribute values of the prior state (docs/adr/0024)
  @Inject SecretsKeyring secrets;

  /** How long an {@code Idempotency-Key} of {@code POST /runs} is remembered. */
  @Value("${stagecraft.planner.idempotency-retention:24h}")
  Duration idempotencyRetention;

  /** Printable ASCII without spaces, 1-200 characters (as Stripe and the IETF draft allow). */
  static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[!-~]{1,200}");

  /** The header of a response that replays the run an earlier request with the key made. */
  static final String REPLAYED = "Idempotent-Replayed";

  public RunsController(RunCoordinator coordinator, ApiAuth auth, InternalApis apis) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.states = new HttpWorkspaceStates(apis.state(), apis.ownStateAddresses());
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
      @Nullable Integer parallelism,
      @Nullable String configurationVersion,
      @Nullable String message,
      @Nullable String coalescingKey,
      @Nullable List<String> hclVariables) {

    /**
     * The names among {@code variables} whose values are HCL expressions (a variable file's: they
     * keep their own type); the others are strings, as {@code -var} gives them.
     */
    Set<String> hcl() {
      return hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
    }

    /** The same request with these files (those of a configuration version). */
    RunBody withFiles(Map<String, String> configFiles, Map<String, String> support) {
      return new RunBody(
          workspace,
          configFiles,
          support,
          variables,
          destroy,
          replace,
          expectedSerial,
          expectedDigest,
          parallelism,
          configurationVersion,
          message,
          coalescingKey,
          hclVariables);
    }
  }

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
    PriorState prior;
    try {
      prior =
          PriorState.fromV4Json(
              states.read(principal.get().tenant(), body.workspace()),
              AttributeSealing.of(secrets, principal.get().tenant(), body.workspace()));
    } catch (AttributeSealing.SealedStateException e) {
      return problem(HttpStatus.CONFLICT, "Sealed state cannot be opened", e.getMessage());
    }
    PlanResult result;
    Path dir = null;
    try {
      dir = coordinator.uploads().materialise(principal.get().tenant(), body.files(), supportFiles);
      var parsed = Planner.parse(body.files());
      // remote states are read with the caller's own API token (docs/planning.md "Remote state")
      PlanRequest planRequest =
          RemoteStateReads.read(
              planRequest(body, dir),
              parsed,
              states,
              principal.get().tenant(),
              ApiAuth.token(request).orElse(null),
              secrets);
      result = Planner.plan(planRequest, prior, parsed);
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
    // output-only changes are applied too (docs/adr/0064): the CLI asks to approve them
    out.put("has_changes", result.plan().applies());
    out.put("digest", result.plan().digest());
    out.put("plan", PlanJson.toMap(result.plan()));
    out.put("rendered", PlanRenderer.render(result.plan()));
    return HttpResponse.ok(out);
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
    WriteAccess access = writeAccess(request, "start");
    if (access.refusal() != null) {
      return access.refusal();
    }
    Principal principal = access.principal();
    String storedKey = null;
    String requestDigest = null;
    byte[] canonicalRequest = null;
    if (idempotencyKey != null) {
      if (!IDEMPOTENCY_KEY.matcher(idempotencyKey).matches()) {
        return problem(
            HttpStatus.BAD_REQUEST,
            "Invalid Idempotency-Key",
            "The Idempotency-Key header must be 1-200 printable ASCII characters without spaces"
                + " (e.g. a UUID); nothing was started.");
      }
      if (body.workspace() == null || !WORKSPACE.matcher(body.workspace()).matches()) {
        return validate(body);
      }
      storedKey = "api/" + body.workspace() + "/" + idempotencyKey;
      canonicalRequest = canonicalRequest(body);
      // keyed with the secrets keyring: the body holds variable values (docs/adr/0023)
      requestDigest =
          secrets.keyedDigest(
              canonicalRequest, requestDigestContext(principal.tenant(), storedKey));
      Optional<HttpResponse<?>> replay =
          replay(principal.tenant(), storedKey, idempotencyKey, canonicalRequest);
      if (replay.isPresent()) {
        return replay.get();
      }
    }
    if (body.configurationVersion() != null) {
      if (body.files() != null && !body.files().isEmpty()) {
        return problem(
            HttpStatus.BAD_REQUEST,
            "Files and configuration version",
            "The request sends both \"files\" and \"configurationVersion\": send one of them.");
      }
      var version = configurationVersions.find(principal.tenant(), body.configurationVersion());
      if (version.isEmpty()) {
        return problem(
            HttpStatus.NOT_FOUND,
            "Not Found",
            "There is no configuration version "
                + body.configurationVersion()
                + ": upload it with POST /api/v1/configuration-versions.");
      }
      body =
          body.withFiles(
              version.get().content().files(), version.get().content().supportFilesBase64());
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
    if (body.coalescingKey() != null
        && (body.coalescingKey().isBlank() || body.coalescingKey().length() > 100)) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid coalescing key",
          "\"coalescingKey\" must be 1-100 characters (what the run is for, e.g. \"deploy\");"
              + " omit it to use the workspace's default key.");
    }
    // fail fast on configuration errors, before queueing for the lock; the run adopts the files
    // written and the configuration parsed here, so nothing is written or parsed twice (ADR 0025)
    PlanResult check;
    Path dir = null;
    LoadResult parsed;
    try {
      dir = coordinator.uploads().materialise(principal.tenant(), body.files(), supportFiles);
      parsed = Planner.parse(body.files());
      check = Planner.plan(planRequest(body, dir), PriorState.empty(), parsed);
    } catch (UploadedFiles.InvalidUpload e) {
      UploadedFiles.delete(dir);
      return invalidFiles(e);
    } catch (RuntimeException e) {
      UploadedFiles.delete(dir);
      throw e;
    }
    if (check.diagnostics().hasErrors()) {
      UploadedFiles.delete(dir);
      return diagnostics(check);
    }
    PreparedConfiguration prepared = new PreparedConfiguration(dir, parsed);
    WorkspaceStore.Workspace workspace;
    try {
      workspace = workspaceStore.ensure(principal.tenant(), body.workspace());
    } catch (SQLException | RuntimeException e) {
      UploadedFiles.delete(dir);
      throw e;
    }
    RunRequest runRequest =
        new RunRequest(
            principal.tenant(),
            body.workspace(),
            body.files(),
            supportFiles,
            body.variables(),
            Boolean.TRUE.equals(body.destroy()),
            body.replace(),
            body.expectedSerial(),
            body.expectedDigest(),
            principal.role() + "@" + principal.tenant(),
            body.parallelism() == null ? workspace.parallelism() : body.parallelism());
    runRequest =
        runRequest
            .withStepTimeoutSeconds(workspace.stepTimeoutSeconds())
            .withHclVariables(body.hcl());
    if (workspace.coalescing()) {
      runRequest = runRequest.withCoalescingKey(coalescingKey(body));
    }
    // a workspace without auto-apply waits for POST /runs/{id}/approve with the plan's digest
    Run run;
    if (storedKey == null) {
      run = coordinator.start(runRequest, !workspace.autoApply(), prepared);
    } else {
      // record the key before the side effect: a retry (here or on another planner) replays
      String runId = "run-" + UUID.randomUUID();
      RunRequestKeyStore keys = new RunRequestKeyStore(dataSource, Clock.systemUTC());
      boolean recorded;
      try {
        recorded =
            keys.recordApiKey(
                principal.tenant(),
                storedKey,
                runId,
                body.workspace(),
                requestDigest,
                Instant.now().minus(idempotencyRetention));
      } catch (RuntimeException e) {
        UploadedFiles.delete(dir); // nothing started: the prepared files go too
        throw e;
      }
      if (!recorded) {
        // a concurrent request with the key recorded it a moment ago
        UploadedFiles.delete(dir);
        return replay(principal.tenant(), storedKey, idempotencyKey, canonicalRequest)
            .orElseGet(
                () ->
                    problem(
                        HttpStatus.CONFLICT,
                        "Idempotency-Key in use",
                        "Another request with this Idempotency-Key is being handled; retry it."));
      }
      run = coordinator.startAs(runId, runRequest, !workspace.autoApply(), prepared);
    }
    // on the run's recording lane, after its pending record (docs/adr/0025): the POST does not
    // wait for a commit
    String tenant = principal.tenant();
    String runId = run.id();
    RunBody described = body;
    coordinator.recordInOrder(
        run,
        () -> {
          try {
            runStore.describe(
                tenant,
                runId,
                described.workspace(),
                described.message(),
                described.configurationVersion(),
                described.variables());
          } catch (SQLException e) {
            // the run goes on; only its record lacks the message and variable names
            LoggerFactory.getLogger(RunsController.class)
                .warn("could not record the request of run {}: {}", runId, e.toString());
          }
        });
    // an accepted run is recorded before it is acknowledged: after a crash of this planner the
    // run is found (and marked errored at the next start) rather than unknown; the run itself
    // does not wait for this (it goes on on its own thread), only the answer does
    if (!coordinator.awaitRecorded(tenant, runId, RECORDS_WAIT)) {
      LoggerFactory.getLogger(RunsController.class)
          .warn("run {} was accepted before its record was written", runId);
    }
    return HttpResponse.created(run.summary());
  }

  /**
   * The lock queue's coalescing key of a run on a workspace with coalescing on: {@code run:} and
   * the request's {@code coalescingKey}, or {@code run:default} (docs/adr/0023). The lock queue is
   * per workspace, so the key needs no workspace in it.
   */
  static String coalescingKey(RunBody body) {
    return "run:" + (body.coalescingKey() == null ? "default" : body.coalescingKey());
  }

  /**
   * The answer to a request whose key is already recorded and within the retention window: 200 the
   * first run with {@code Idempotent-Replayed: true}, or 422 when this request's body differs.
   * Empty when the key is not recorded, or its record is older than the retention window.
   */
  private Optional<HttpResponse<?>> replay(
      String tenant, String storedKey, String idempotencyKey, byte[] canonicalRequest)
      throws SQLException {
    Optional<RunRequestKeyStore.ApiKey> recorded =
        new RunRequestKeyStore(dataSource, Clock.systemUTC()).findApiKey(tenant, storedKey);
    if (recorded.isEmpty()
        || recorded.get().recordedAt().isBefore(Instant.now().minus(idempotencyRetention))) {
      return Optional.empty();
    }
    String runId = recorded.get().runId();
    if (!secrets.matchesKeyedDigest(
        recorded.get().requestDigest(),
        canonicalRequest,
        requestDigestContext(tenant, storedKey))) {
      return Optional.of(
          problem(
              HttpStatus.UNPROCESSABLE_ENTITY,
              "Idempotency-Key reused",
              "Idempotency-Key '"
                  + idempotencyKey
                  + "' was used for another request (run "
                  + runId
                  + ") with a different body; nothing was started. Use a new key for a new"
                  + " request, or send exactly the first request's body to get its run."));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    Optional<Run> live = coordinator.find(tenant, runId);
    if (live.isPresent()) {
      Run.RunSummary summary = live.get().summary();
      out.put("id", summary.id());
      out.put("tenant", summary.tenant());
      out.put("workspace", summary.workspace());
      out.put("status", summary.status());
      out.put("terminal", summary.terminal());
      out.put("message", summary.message());
      out.put("planDigest", summary.planDigest());
      out.put("createdAt", summary.createdAt());
    } else {
      out.put("id", runId);
      runStore.find(tenant, runId).ifPresent(r -> out.putAll(summaryOf(r)));
    }
    return Optional.of(HttpResponse.ok(out).header(REPLAYED, "true"));
  }

  /**
   * The request body in a canonical JSON form (map entries sorted), to tell a retry from another
   * request with the same key. Only its keyed digest ({@link
   * dev.stagecraft.schemas.seal.SecretsKeyring#keyedDigest}) is stored, never the body.
   */
  static byte[] canonicalRequest(RunBody body) {
    try {
      return EventCodec.mapper()
          .copy()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not digest the request: " + e.getMessage(), e);
    }
  }

  /** What a request digest is bound to: the tenant and the stored key. */
  private static byte[] requestDigestContext(String tenant, String storedKey) {
    return SecretsKeyring.associatedData("dev.stagecraft.run-request/digest/v1", tenant, storedKey);
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
      return unauthorized();
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
   * tell (ended, approved, or requested without approval: {@link #awaitingAsRecorded}) and absent
   * otherwise (another instance drives the run, and only it knows).
   */
  @Get("/runs/{id}")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String id) throws SQLException {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    String tenant = principal.get().tenant();
    coordinator.awaitRecorded(tenant, id, RECORDS_WAIT); // read-your-writes, as for list
    Optional<RunStore.RunRecord> recorded = runStore.find(tenant, id);
    Optional<Run> live = coordinator.find(tenant, id);
    if (recorded.isEmpty() && live.isEmpty()) {
      return notFound(id);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    if (live.isPresent()) {
      Run.RunSummary summary = live.get().summary();
      out.put("id", summary.id());
      out.put("tenant", summary.tenant());
      out.put("workspace", summary.workspace());
      out.put("status", summary.status());
      out.put("terminal", summary.terminal());
      out.put("message", summary.message());
      out.put("planDigest", summary.planDigest());
      out.put("planText", summary.planText());
      out.put("createdAt", summary.createdAt());
      // what a client needs to know to approve: a run that auto-applies never waits
      Optional<Instant> deadline = coordinator.approvalDeadline(tenant, id);
      out.put("awaitingApproval", deadline.isPresent());
      deadline.ifPresent(at -> out.put("approvalExpiresAt", at));
    }
    recorded.ifPresent(
        r -> {
          summaryOf(r).forEach(out::putIfAbsent);
          out.put("updatedAt", r.updatedAt());
          out.put("requestMessage", r.requestMessage());
          out.put("requestedBy", r.requestedBy());
          out.put("approvedBy", r.approvedBy());
          out.put("approvedAt", r.approvedAt());
          out.put("configurationVersion", r.configurationVersion());
          out.put("variables", r.variables());
        });
    if (live.isEmpty()) {
      Optional<Boolean> awaiting =
          awaitingAsRecorded(
              recorded.get().terminal(),
              recorded.get().approvedBy(),
              runRequests.awaitedApproval(tenant, id));
      awaiting.ifPresent(a -> out.put("awaitingApproval", a));
    }
    out.put("transitions", runStore.transitions(tenant, id));
    return HttpResponse.ok(out);
  }

  /**
   * Whether a run shown from its records (another instance drives it, or it ended) waits for
   * approval, where the records can tell: not when it ended, was approved, or was requested to
   * apply without approval (it never waits). Otherwise empty: only the instance that drives it
   * knows (the records may lag behind it), so the field is left out.
   */
  static Optional<Boolean> awaitingAsRecorded(
      boolean terminal, String approvedBy, Optional<Boolean> requestAwaited) {
    if (terminal || approvedBy != null || requestAwaited.equals(Optional.of(false))) {
      return Optional.of(false);
    }
    return Optional.empty();
  }

  /**
   * Cancels a run: before it applies it ends {@code canceled} at once; while it applies nothing
   * more is dispatched, running actions are stopped, and it ends {@code canceled} once they have
   * reported (202 with the run; follow its events for the end). A terminal run is left as it is
   * (202 with the run, read from its records when this instance no longer holds it: docs/adr/0044).
   * A run another planner instance drives is 409: this instance cannot stop it.
   */
  @Post("/runs/{id}/cancel")
  public HttpResponse<?> cancel(HttpRequest<?> request, @PathVariable String id) {
    WriteAccess access = writeAccess(request, "cancel");
    if (access.refusal() != null) {
      return access.refusal();
    }
    Principal principal = access.principal();
    return coordinator
        .cancel(principal.tenant(), id, principal.role() + "@" + principal.tenant())
        .<HttpResponse<?>>map(run -> HttpResponse.accepted().body(run.summary()))
        .orElseGet(() -> cancelNotDrivenHere(request, principal.tenant(), id));
  }

  /**
   * A cancel of a run this instance does not hold: ended (left as it is), none, or live elsewhere
   * (forwarded to the instance that drives it, docs/adr/0050).
   */
  private HttpResponse<?> cancelNotDrivenHere(HttpRequest<?> request, String tenant, String id) {
    try {
      Optional<RunStore.RunRecord> recorded = runStore.find(tenant, id);
      if (recorded.isEmpty()) {
        return notFound(id);
      }
      if (recorded.get().terminal()) {
        return HttpResponse.accepted().body(summaryOf(recorded.get()));
      }
      return forwarded(request, recorded.get(), "cancel", "{}");
    } catch (SQLException e) {
      return recordsUnavailable(id);
    }
  }

  /**
   * An approve or discard of a run this instance does not hold: 404 when there is no such run, 409
   * "not awaiting approval" when it ended; when it is live elsewhere (it may await approval there),
   * forwarded to the instance that drives it (docs/adr/0050).
   */
  private HttpResponse<?> approvalNotHeldHere(
      HttpRequest<?> request, String tenant, String id, String verb, String jsonBody)
      throws SQLException {
    Optional<RunStore.RunRecord> recorded = runStore.find(tenant, id);
    if (recorded.isEmpty()) {
      return notFound(id);
    }
    return recorded.get().terminal()
        ? notAwaiting(id)
        : forwarded(request, recorded.get(), verb, jsonBody);
  }

  /**
   * {@code verb} of a live run another planner instance drives, asked of that instance, or a
   * problem saying why it could not be (see {@link RunForwarding}).
   */
  private HttpResponse<?> forwarded(
      HttpRequest<?> request, RunStore.RunRecord run, String verb, String jsonBody)
      throws SQLException {
    return forwarding
        .forward(request, run.tenant(), run.id(), run.status(), verb, jsonBody)
        .orElseGet(() -> notFound(run.id()));
  }

  /** The fields of a run's summary, from its records. */
  private static Map<String, Object> summaryOf(RunStore.RunRecord r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", r.id());
    out.put("tenant", r.tenant());
    out.put("workspace", r.workspace());
    out.put("status", r.status());
    out.put("terminal", r.terminal());
    out.put("message", r.message());
    out.put("planDigest", r.planDigest());
    out.put("createdAt", r.createdAt());
    return out;
  }

  /** The body of an approval: the digest of the plan being approved (as the run shows it). */
  public record ApproveBody(@Nullable String planDigest) {}

  /**
   * Approves a planned run's plan, named by its digest: 202 the run, which goes on to apply exactly
   * that plan. 409 when the digest is not the run's plan's ("stale"), when the run does not wait
   * for approval, or when the approval timeout passed (the run is then discarded). When another
   * planner instance drives the run (only it can approve), the request is forwarded there and its
   * answer relayed (docs/adr/0050). Deployer or admin.
   */
  @Post("/runs/{id}/approve")
  public HttpResponse<?> approve(
      HttpRequest<?> request, @PathVariable String id, @Body @Nullable ApproveBody body)
      throws SQLException {
    WriteAccess access = writeAccess(request, "approve");
    if (access.refusal() != null) {
      return access.refusal();
    }
    Principal principal = access.principal();
    if (body == null || body.planDigest() == null || body.planDigest().isBlank()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "No plan digest",
          "Name the plan you approve: send {\"planDigest\": \"...\"} with the run's planDigest.");
    }
    String tenant = principal.tenant();
    String by = principal.role() + "@" + tenant;
    var outcome = coordinator.approve(tenant, id, body.planDigest(), by);
    return switch (outcome) {
      case DONE -> {
        coordinator.awaitRecorded(tenant, id, RECORDS_WAIT); // the run's row exists
        runStore.approved(tenant, id, by);
        yield HttpResponse.accepted().body(coordinator.find(tenant, id).orElseThrow().summary());
      }
      case NOT_FOUND ->
          approvalNotHeldHere(
              request, tenant, id, "approve", Json.write(Map.of("planDigest", body.planDigest())));
      case NOT_AWAITING -> notAwaiting(id);
      case WRONG_DIGEST ->
          problem(
              HttpStatus.CONFLICT,
              "Stale plan",
              RunCoordinator.approvalRefusal(outcome, id, body.planDigest()));
      case EXPIRED ->
          problem(
              HttpStatus.CONFLICT,
              "Approval expired",
              RunCoordinator.approvalRefusal(outcome, id, body.planDigest()));
    };
  }

  /**
   * Discards a run waiting for approval: 202 the run (ended {@code discarded}, lock released); 409
   * when it does not wait for approval; forwarded when another planner instance drives it.
   */
  @Post("/runs/{id}/discard")
  public HttpResponse<?> discard(HttpRequest<?> request, @PathVariable String id)
      throws SQLException {
    WriteAccess access = writeAccess(request, "discard");
    if (access.refusal() != null) {
      return access.refusal();
    }
    Principal principal = access.principal();
    String tenant = principal.tenant();
    var outcome = coordinator.discard(tenant, id, principal.role() + "@" + tenant);
    return switch (outcome) {
      case DONE ->
          HttpResponse.accepted().body(coordinator.find(tenant, id).orElseThrow().summary());
      case NOT_FOUND -> approvalNotHeldHere(request, tenant, id, "discard", "{}");
      default -> notAwaiting(id);
    };
  }

  private static HttpResponse<?> notAwaiting(String id) {
    return problem(
        HttpStatus.CONFLICT,
        "Not awaiting approval",
        RunCoordinator.approvalRefusal(RunCoordinator.ApprovalOutcome.NOT_AWAITING, id, null));
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
    HttpResponse<?> outOfRange =
        RequestRanges.first(
            RequestRanges.SEQUENCE.check(after), RequestRanges.WAIT_SECONDS.check(wait));
    if (outOfRange != null) {
      return outOfRange;
    }
    Optional<Run> run = coordinator.find(principal.get().tenant(), id);
    if (run.isEmpty()) {
      return recordedEvents(principal.get().tenant(), id, after, wait);
    }
    // a resumed run's entries from before the restart (up to its journal's base) come from its
    // records, followed by what this instance has of it: one answer holds both
    long base = run.get().journal().base();
    List<RunEvent> events = new ArrayList<>();
    if (after < base) {
      try {
        events.addAll(
            runJournal.after(principal.get().tenant(), id, after, base, RunLogStream.PAGE));
      } catch (SQLException | IllegalStateException e) {
        return recordsUnavailable(id);
      }
    }
    boolean more = events.size() >= RunLogStream.PAGE;
    if (!more) {
      Duration waitFor = events.isEmpty() ? Duration.ofSeconds(wait) : Duration.ZERO;
      events.addAll(run.get().journal().after(Math.max(after, base), waitFor));
    }
    Run.RunSummary summary = run.get().summary();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("events", events);
    out.put("status", summary.status());
    out.put("terminal", summary.terminal() && !more); // a full page of records: more to read
    return HttpResponse.ok(out);
  }

  /**
   * The run's journal as Server-Sent Events ({@code text/event-stream}; see {@link RunLogStream}):
   * each entry an event whose id is its sequence. A client that reconnects with {@code
   * Last-Event-ID: N} gets exactly the entries after N; the stream ends after the terminal
   * transition. Another tenant's run is 404, like a run that does not exist. A run this instance
   * does not drive (another instance does, or it ran before a restart) is streamed from its
   * recorded journal, with the same ids (docs/adr/0032).
   */
  @Get(value = "/runs/{id}/logs", produces = MediaType.TEXT_EVENT_STREAM)
  public HttpResponse<?> logs(
      HttpRequest<?> request,
      @PathVariable String id,
      @Nullable @Header("Last-Event-ID") String lastEventId) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return unauthorized();
    }
    String tenant = principal.get().tenant();
    Optional<Run> run = coordinator.find(tenant, id);
    if (run.isEmpty()) {
      try {
        if (runStore.find(tenant, id).isEmpty()) {
          return notFound(id);
        }
      } catch (SQLException e) {
        return recordsUnavailable(id);
      }
    }
    long after = 0;
    if (lastEventId != null && !lastEventId.isBlank()) {
      try {
        after = Long.parseLong(lastEventId.strip());
        if (after < 0) {
          throw new NumberFormatException("negative");
        }
      } catch (NumberFormatException e) {
        return problem(
            HttpStatus.BAD_REQUEST,
            "Invalid Last-Event-ID",
            "Last-Event-ID must be the id of an event of this stream (a sequence number); got '"
                + lastEventId
                + "'. Omit it to read the run's log from the start.");
      }
    }
    RunLogStream.Source source =
        run.isPresent()
            ? RunLogStream.live(run.get(), runJournal)
            : RunLogStream.recorded(tenant, id, runJournal, runStore, runLogFollowers);
    return HttpResponse.ok(new RunLogStream(id, source, after))
        .contentType(MediaType.TEXT_EVENT_STREAM_TYPE);
  }

  /**
   * The public API's problem documents: typed by title (a page under stagecraft.dev) and without
   * {@code WWW-Authenticate}, since the API takes a bearer token or basic auth alike.
   */
  static MutableHttpResponse<String> problem(HttpStatus status, String title, String detail) {
    return problem(status, title, detail, null);
  }

  private static MutableHttpResponse<String> problem(
      HttpStatus status, String title, String detail, List<Object> diagnostics) {
    return new Problem(Problem.typeFor(title), status.getCode(), title, detail, diagnostics)
        .response();
  }

  /** The caller of a write endpoint: its principal, or else the response refusing it. */
  private record WriteAccess(Principal principal, HttpResponse<String> refusal) {}

  /**
   * Who may call a write endpoint: 401 without a valid token; 403 for a reader token ("A reader
   * token cannot {@code verb} runs"); else the caller's principal.
   */
  private WriteAccess writeAccess(HttpRequest<?> request, String verb) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return new WriteAccess(null, unauthorized());
    }
    if ("reader".equals(principal.get().role())) {
      return new WriteAccess(
          null,
          problem(
              HttpStatus.FORBIDDEN,
              "Forbidden",
              "A reader token cannot " + verb + " runs; use a deployer token."));
    }
    return new WriteAccess(principal.get(), null);
  }

  static HttpResponse<String> unauthorized() {
    return problem(
        HttpStatus.UNAUTHORIZED,
        "Unauthorized",
        "A valid API token is required: send it as 'Authorization: Bearer <token>'"
            + " (stagecraft env prints the dev stack's).");
  }

  /**
   * The events of a run this planner does not hold in memory (it ran before a restart, or on
   * another instance): its recorded journal (docs/adr/0032), long-polled: when nothing is newer the
   * request waits, up to {@code wait} seconds, for the recording instance's notification that
   * entries of the run were recorded (docs/adr/0037; at least every safety re-read interval it
   * reads again), then answers what is newer, or nothing at the deadline. A run that ended without
   * its terminal entry recorded answers that entry made from its record (see {@link
   * RunLogStream#missingTerminal}). A run recorded before journals were (no journal rows) answers
   * its recorded transitions, as status events numbered by their event sequence. A run that is not
   * recorded is 404.
   */
  private HttpResponse<?> recordedEvents(String tenant, String id, long after, int wait)
      throws InterruptedException {
    Optional<RunStore.RunRecord> recorded;
    List<RunStore.Transition> transitions;
    try (var watch = runLogFollowers.watch(id)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(wait).toNanos();
      while (true) {
        long seen = watch.version(); // before the reads: anything recorded after them changes it
        recorded = runStore.find(tenant, id);
        if (recorded.isEmpty()) {
          return notFound(id);
        }
        if (runJournal.lastRecorded(tenant, id) == 0) {
          break; // recorded before journals were
        }
        List<RunEvent> entries =
            runJournal.after(tenant, id, after, Long.MAX_VALUE, RunLogStream.PAGE);
        if (entries.isEmpty() && recorded.get().terminal()) {
          RunEvent missing =
              RunLogStream.missingTerminal(recorded.get(), runJournal.last(tenant, id), after);
          entries = missing == null ? List.of() : List.of(missing);
        }
        long left = deadline - System.nanoTime();
        if (!entries.isEmpty() || recorded.get().terminal() || left <= 0) {
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("events", entries);
          out.put("status", recorded.get().status());
          out.put("terminal", recorded.get().terminal() && entries.size() < RunLogStream.PAGE);
          return HttpResponse.ok(out);
        }
        // a park until the run's entries are notified, bounded by this request's deadline
        watch.await(seen, Duration.ofNanos(left));
      }
      transitions = runStore.transitions(tenant, id);
    } catch (SQLException | IllegalStateException e) {
      return recordsUnavailable(id);
    }
    List<RunEvent> events = new ArrayList<>();
    for (RunStore.Transition t : transitions) {
      if (t.sequence() > after) {
        events.add(
            new RunEvent(
                t.sequence(), t.at(), "status", t.status(), null, null, null, t.message()));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("events", events);
    out.put("status", recorded.get().status());
    out.put("terminal", recorded.get().terminal());
    return HttpResponse.ok(out);
  }

  private static HttpResponse<?> recordsUnavailable(String id) {
    return problem(
        HttpStatus.SERVICE_UNAVAILABLE,
        "Run records unavailable",
        "The planner could not read run " + id + " from its database; retry shortly.");
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
        true,
        body.hcl());
  }

  private static HttpResponse<?> invalidFiles(UploadedFiles.InvalidUpload e) {
    if (e instanceof UploadedFiles.TooLarge) {
      return tooLarge(e);
    }
    return problem(HttpStatus.BAD_REQUEST, "Invalid files", e.getMessage());
  }

  /** 413: an upload over one of the limits (docs/runs.md "Limits"), which the detail names. */
  static HttpResponse<?> tooLarge(IllegalArgumentException e) {
    return problem(HttpStatus.REQUEST_ENTITY_TOO_LARGE, "Configuration too large", e.getMessage());
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
    return RequestRanges.first(
        RequestRanges.PARALLELISM.check(body.parallelism()),
        RequestRanges.SERIAL.check(body.expectedSerial()));
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
