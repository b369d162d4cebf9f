package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.servicekit.http.Json;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * What a caller decides about a run: {@code POST /api/v1/runs/{id}/approve}, {@code .../discard}
 * and {@code .../cancel}. A run another planner instance drives is asked of that instance ({@link
 * RunForwarding}, docs/adr/0050). Deployer or admin.
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunDecisionsController {
  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final RunStore runStore;
  // cancel, approve and discard of runs another instance drives (docs/adr/0050)
  private final RunForwarding forwarding;

  public RunDecisionsController(
      RunCoordinator coordinator, ApiAuth auth, RunStore runStore, RunForwarding forwarding) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.runStore = runStore;
    this.forwarding = forwarding;
  }

  /** The body of an approval: the digest of the plan being approved (as the run shows it). */
  public record ApproveBody(@Nullable String planDigest) {}

  /**
   * Cancels a run: before it applies it ends {@code canceled} at once; while it applies nothing
   * more is dispatched, running actions are stopped, and it ends {@code canceled} once they have
   * reported (202 with the run; follow its events for the end). A terminal run is left as it is
   * (202 with the run, read from its records when this instance no longer holds it: docs/adr/0044).
   * A run another planner instance drives is forwarded there.
   */
  @Post("/runs/{id}/cancel")
  public HttpResponse<?> cancel(HttpRequest<?> request, @PathVariable String id) {
    RunCallers.WriteAccess access = RunCallers.writer(auth, request, "cancel");
    if (access.refusal() != null) {
      return access.refusal();
    }
    Principal principal = access.principal();
    return coordinator
        .cancel(principal.tenant(), id, RunCallers.name(principal))
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
        return ApiProblems.notFound(id);
      }
      if (recorded.get().terminal()) {
        return HttpResponse.accepted().body(RecordedRunViews.summary(recorded.get()));
      }
      return forwarded(request, recorded.get(), "cancel", "{}");
    } catch (SQLException e) {
      return ApiProblems.recordsUnavailable(id);
    }
  }

  /**
   * Approves a planned run's plan, named by its digest: 202 the run, which goes on to apply exactly
   * that plan. 409 when the digest is not the run's plan's ("stale"), when the run does not wait
   * for approval, or when the approval timeout passed (the run is then discarded). When another
   * planner instance drives the run (only it can approve), the request is forwarded there and its
   * answer relayed (docs/adr/0050).
   */
  @Post("/runs/{id}/approve")
  public HttpResponse<?> approve(
      HttpRequest<?> request, @PathVariable String id, @Body @Nullable ApproveBody body)
      throws SQLException {
    RunCallers.WriteAccess access = RunCallers.writer(auth, request, "approve");
    if (access.refusal() != null) {
      return access.refusal();
    }
    if (body == null || body.planDigest() == null || body.planDigest().isBlank()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "No plan digest",
          "Name the plan you approve: send {\"planDigest\": \"...\"} with the run's planDigest.");
    }
    String tenant = access.principal().tenant();
    String by = RunCallers.name(access.principal());
    var outcome = coordinator.approve(tenant, id, body.planDigest(), by);
    return switch (outcome) {
      case DONE -> {
        coordinator.awaitRecorded(tenant, id, RunsController.RECORDS_WAIT); // the run's row exists
        runStore.approved(tenant, id, by);
        yield HttpResponse.accepted().body(coordinator.find(tenant, id).orElseThrow().summary());
      }
      case NOT_FOUND ->
          approvalNotHeldHere(
              request, tenant, id, "approve", Json.write(Map.of("planDigest", body.planDigest())));
      case NOT_AWAITING -> notAwaiting(id);
      case WRONG_DIGEST ->
          problem(HttpStatus.CONFLICT, "Stale plan", outcome.refusal(id, body.planDigest()));
      case EXPIRED ->
          problem(HttpStatus.CONFLICT, "Approval expired", outcome.refusal(id, body.planDigest()));
    };
  }

  /**
   * Discards a run waiting for approval: 202 the run (ended {@code discarded}, lock released); 409
   * when it does not wait for approval; forwarded when another planner instance drives it.
   */
  @Post("/runs/{id}/discard")
  public HttpResponse<?> discard(HttpRequest<?> request, @PathVariable String id)
      throws SQLException {
    RunCallers.WriteAccess access = RunCallers.writer(auth, request, "discard");
    if (access.refusal() != null) {
      return access.refusal();
    }
    String tenant = access.principal().tenant();
    var outcome = coordinator.discard(tenant, id, RunCallers.name(access.principal()));
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
        ApprovalOutcome.NOT_AWAITING.refusal(id, null));
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
      return ApiProblems.notFound(id);
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
        .orElseGet(() -> ApiProblems.notFound(run.id()));
  }
}
