package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.SigningTenant;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The run-trigger webhook and its secrets (docs/chatops.md, ADR 0016, ADR 0054). {@code POST
 * /api/v1/hooks/run-requests} takes the same signed CloudEvents as the trigger topic (run requests
 * and decisions on runs waiting for approval), authenticated by its HMAC signature alone (no API
 * token); {@code POST /api/v1/hooks/secret} issues a tenant's trigger secret (admin token), shown
 * once.
 */
@Controller("/api/v1/hooks")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunTriggersController {
  private final RunTrigger trigger;
  private final TriggerSecrets secrets;
  private final ApiAuth auth;
  private final Duration tolerance;

  public RunTriggersController(
      RunTrigger trigger,
      TriggerSecrets secrets,
      ApiAuth auth,
      @Value("${stagecraft.trigger.webhook-tolerance:5m}") Duration tolerance) {
    this.trigger = trigger;
    this.secrets = secrets;
    this.auth = auth;
    this.tolerance = tolerance;
  }

  /**
   * A run request: 202 {@code {"run_id","duplicate","status"}} when a run was started or
   * (duplicate) the key already made one. A decision (docs/adr/0054): 202 {@code
   * {"run_id","decision","status"}} when the run was approved or discarded, here or (forwarded) by
   * the planner instance that drives it; 404 when the tenant has no such run; 409 when the run does
   * not wait for approval, the digest is another plan's, or the approval timeout passed; 503 with
   * {@code Retry-After} when the instance driving the run cannot be asked now. Both: 401 when the
   * signature or timestamp is wrong, or the signing tenant cannot be told (checked on the raw bytes
   * before anything of them is decoded: a body that is not even JSON is refused as unsigned); 413
   * over {@value RunTrigger#MAX_BODY_BYTES} bytes ({@link TriggerBodyLimit} refuses a larger
   * Content-Length before the body is read); 400 when the event is not valid. Nothing changes
   * unless it answers 202.
   */
  @Post("/run-requests")
  @Consumes({MediaType.APPLICATION_JSON, "application/cloudevents+json"})
  public HttpResponse<?> runRequest(
      @Body @Nullable byte[] body,
      @Nullable @Header(SigningTenant.HEADER) String tenant,
      @Nullable @Header(TriggerSignature.TIMESTAMP_HEADER) String timestamp,
      @Nullable @Header(TriggerSignature.SIGNATURE_HEADER) String signature,
      @Nullable @Header(RunForwarding.FORWARDED_BY) String forwardedBy) {
    RunTrigger.Outcome outcome =
        trigger.handle(
            body == null ? new byte[0] : body,
            tenant,
            timestamp,
            signature,
            tolerance,
            forwardedBy);
    return switch (outcome) {
      case RunTrigger.Refused r -> refused(r);
      case RunTrigger.Accepted a -> {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("run_id", a.start().runId());
        out.put("duplicate", a.start().duplicate());
        out.put("status", a.start().run().map(run -> run.summary().status()).orElse(null));
        yield HttpResponse.accepted().body(out);
      }
      case RunTrigger.Decided d -> {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("run_id", d.runId());
        out.put("decision", d.decision());
        out.put("status", d.status());
        yield HttpResponse.accepted().body(out);
      }
    };
  }

  private static HttpResponse<?> refused(RunTrigger.Refused r) {
    return switch (r.kind()) {
      case UNAUTHORIZED -> ApiProblems.problem(HttpStatus.UNAUTHORIZED, "Unauthorized", r.reason());
      case MALFORMED -> ApiProblems.problem(HttpStatus.BAD_REQUEST, "Invalid trigger", r.reason());
      case NOT_FOUND -> ApiProblems.problem(HttpStatus.NOT_FOUND, "Run not found", r.reason());
      case CONFLICT -> ApiProblems.problem(HttpStatus.CONFLICT, "Decision refused", r.reason());
      case UNAVAILABLE ->
          ApiProblems.problem(
                  HttpStatus.SERVICE_UNAVAILABLE, "Not now: send it again later", r.reason())
              .header("Retry-After", RunForwarding.RETRY_AFTER);
      case TOO_LARGE ->
          ApiProblems.problem(HttpStatus.REQUEST_ENTITY_TOO_LARGE, "Trigger too large", r.reason());
    };
  }

  /**
   * Issues a new trigger secret for the caller's tenant (admin token): 201 {@code {"tenant",
   * "secret","created_at","previous_valid_until"}}. The secret is shown only here; the previous one
   * keeps working until {@code previous_valid_until} ({@code STAGECRAFT_TRIGGER_SECRET_GRACE}).
   */
  @Post("/secret")
  public HttpResponse<?> rotateSecret(HttpRequest<?> request) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    if (!"admin".equals(principal.get().role())) {
      return ApiProblems.problem(
          HttpStatus.FORBIDDEN, "Forbidden", "Only an admin token can issue trigger secrets.");
    }
    TriggerSecrets.Issued issued;
    try {
      issued = secrets.rotate(principal.get().tenant());
    } catch (IllegalStateException e) {
      return ApiProblems.problem(
          HttpStatus.SERVICE_UNAVAILABLE, "Trigger secrets unavailable", e.getMessage());
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("tenant", issued.tenant());
    out.put("secret", issued.secret());
    out.put("created_at", issued.createdAt().toString());
    out.put(
        "previous_valid_until",
        issued.previousValidUntil() == null ? null : issued.previousValidUntil().toString());
    return HttpResponse.created(out);
  }
}
