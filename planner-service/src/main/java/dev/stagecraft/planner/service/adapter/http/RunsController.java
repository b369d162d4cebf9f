package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.view.RunView;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Runs as recorded and live: {@code GET /api/v1/runs} lists the tenant's, {@code GET
 * /api/v1/runs/{id}} shows one ({@link RunView}). Starting a run: {@link RunStartsController};
 * plans: {@link PlansController}; approve, discard and cancel: {@link RunDecisionsController};
 * events and logs: {@link RunEventsController}.
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunsController {
  /**
   * How long a read of run records waits for this instance's pending records of live runs
   * (docs/adr/0025); normally they are written within milliseconds.
   */
  static final Duration RECORDS_WAIT = RunIntake.RECORDS_WAIT;

  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final RunStore runStore;
  // whether a run shown from its records was requested awaiting approval
  private final RunRequestStore runRequests;

  public RunsController(
      RunCoordinator coordinator, ApiAuth auth, RunStore runStore, RunRequestStore runRequests) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.runStore = runStore;
    this.runRequests = runRequests;
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
   * transitions, and {@code traceId}: the id of the run's trace when it was traced, docs/adr/0083).
   * A live run also says whether it waits for approval now ({@code awaitingApproval}, and then
   * until when: {@code approvalExpiresAt}); as recorded, it is false when the records can tell
   * (ended, approved, or requested without approval: {@link RecordedRunViews#awaitingAsRecorded})
   * and absent otherwise (another instance drives the run, and only it knows).
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
