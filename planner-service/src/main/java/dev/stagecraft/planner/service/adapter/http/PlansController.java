package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceStates;
import dev.stagecraft.planner.service.adapter.clients.InternalApis;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.run.RemoteStateReads;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.run.view.PlanView;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /api/v1/plans}: plans synchronously against the workspace's current state, without
 * changing anything (a run plans again under the workspace lock: {@link RunsController}).
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PlansController {
  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final HttpWorkspaceStates states;
  // opens the sealed attribute values of the prior state (docs/adr/0024)
  private final SecretsKeyring secrets;

  public PlansController(
      RunCoordinator coordinator, ApiAuth auth, InternalApis apis, SecretsKeyring secrets) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.states = new HttpWorkspaceStates(apis.state(), apis.ownStateAddresses());
    this.secrets = secrets;
  }

  @Post("/plans")
  public HttpResponse<?> plan(HttpRequest<?> request, @Body RunBody body) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    HttpResponse<?> invalid = body.invalid();
    if (invalid != null) {
      return invalid;
    }
    if (body.files() == null || body.files().isEmpty()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "No configuration",
          "The request has no configuration files: send them as \"files\": {\"main.tf\": \"...\"}.");
    }
    String tenant = principal.get().tenant();
    Map<String, byte[]> supportFiles;
    try {
      supportFiles = UploadedFiles.decode(body.files(), body.supportFiles());
    } catch (UploadedFiles.InvalidUpload e) {
      return ApiProblems.invalidFiles(e);
    }
    PriorState prior;
    try {
      prior =
          PriorState.fromV4Json(
              states.read(tenant, body.workspace()),
              AttributeSealing.of(secrets, tenant, body.workspace()));
    } catch (AttributeSealing.SealedStateException e) {
      return problem(HttpStatus.CONFLICT, "Sealed state cannot be opened", e.getMessage());
    }
    PlanResult result;
    Path dir = null;
    try {
      dir = coordinator.uploads().materialise(tenant, body.files(), supportFiles);
      var parsed = Planner.parse(body.files());
      // remote states are read with the caller's own API token (docs/planning.md "Remote state")
      PlanRequest planRequest =
          RemoteStateReads.read(
              planRequest(body, dir),
              parsed,
              states,
              tenant,
              ApiAuth.token(request).orElse(null),
              secrets);
      result = Planner.plan(planRequest, prior, parsed);
    } catch (UploadedFiles.InvalidUpload e) {
      return ApiProblems.invalidFiles(e);
    } finally {
      // nothing reads the files after a plan: only a run's apply context does, later
      UploadedFiles.delete(dir);
    }
    if (result.hasErrors()) {
      return ApiProblems.diagnostics(result);
    }
    return HttpResponse.ok(PlanView.of(body.workspace(), prior.serial(), result.plan()));
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
}
