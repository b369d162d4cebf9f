package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.trigger.RunTrigger;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The run-trigger webhook and its secrets (docs/chatops.md, ADR 0016). {@code POST
 * /api/v1/hooks/run-requests} takes the same signed CloudEvent as the trigger topic, authenticated
 * by its HMAC signature alone (no API token); {@code POST /api/v1/hooks/secret} issues a tenant's
 * trigger secret (admin token), shown once.
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
   * 202 {@code {"run_id","duplicate","status"}} when a run was started or (duplicate) the key
   * already made one; 401 when the signature or timestamp is wrong; 400 when the event is not a
   * valid run request. Nothing is started unless it answers 202.
   */
  @Post("/run-requests")
  @Consumes({MediaType.APPLICATION_JSON, "application/cloudevents+json"})
  public HttpResponse<?> runRequest(
      @Body String body,
      @Nullable @Header(TriggerSignature.TIMESTAMP_HEADER) String timestamp,
      @Nullable @Header(TriggerSignature.SIGNATURE_HEADER) String signature) {
    RunTrigger.Outcome outcome =
        trigger.handle(
            body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8),
            timestamp,
            signature,
            tolerance);
    return switch (outcome) {
      case RunTrigger.Refused r when r.kind() == RunTrigger.Refusal.UNAUTHORIZED ->
          RunsController.problem(HttpStatus.UNAUTHORIZED, "Unauthorized", r.reason());
      case RunTrigger.Refused r ->
          RunsController.problem(HttpStatus.BAD_REQUEST, "Invalid run request", r.reason());
      case RunTrigger.Accepted a -> {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("run_id", a.start().runId());
        out.put("duplicate", a.start().duplicate());
        out.put("status", a.start().run().map(run -> run.summary().status()).orElse(null));
        yield HttpResponse.accepted().body(out);
      }
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
      return RunsController.unauthorized();
    }
    if (!"admin".equals(principal.get().role())) {
      return RunsController.problem(
          HttpStatus.FORBIDDEN, "Forbidden", "Only an admin token can issue trigger secrets.");
    }
    TriggerSecrets.Issued issued;
    try {
      issued = secrets.rotate(principal.get().tenant());
    } catch (IllegalStateException e) {
      return RunsController.problem(
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
