package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.action.RunCredentialProof;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.db.RunCredentialStore;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore;
import dev.stagecraft.state.application.RunOpening;
import dev.stagecraft.state.application.StateHistory;
import dev.stagecraft.state.history.TaintDecision;
import dev.stagecraft.state.history.TerraformStateV4;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Service-to-service endpoints ({@code /internal/v1}): tenants and tokens for the planner and
 * operators, everything about runs and workspaces for the planner only ({@link Authenticator}).
 */
@Controller("/internal/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalStateController {
  private static final Set<String> ROLES = Set.of("admin", "deployer", "reader");

  private final Authenticator auth;
  private final TenantStore tenants;
  private final StateStore states;
  private final StateHistory history;
  private final RunCredentialStore runCredentials;

  public InternalStateController(
      Authenticator auth,
      TenantStore tenants,
      StateStore states,
      StateHistory history,
      RunCredentialStore runCredentials) {
    this.auth = auth;
    this.tenants = tenants;
    this.states = states;
    this.history = history;
    this.runCredentials = runCredentials;
  }

  @Post("/tenants")
  public HttpResponse<String> createTenant(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      @Body @Nullable String body)
      throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    String tenant = Names.check("tenant", Json.requiredText(Json.object(body), "name"));
    tenants.ensureTenant(tenant);
    return Json.respond(HttpStatus.OK, Map.of("tenant", tenant));
  }

  /** Every tenant: 200 {@code {"tenants":["a","b"]}}. */
  @Get("/tenants")
  public HttpResponse<String> listTenants(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization) throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    return Json.respond(HttpStatus.OK, Map.of("tenants", tenants.tenants()));
  }

  /** The tenant's tokens without secrets: 200 {@code {"tokens":[{id, role, ...}]}}. */
  @Get("/tenants/{tenant}/tokens")
  public HttpResponse<String> listTokens(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant)
      throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    Names.check("tenant", tenant);
    return Json.respond(HttpStatus.OK, Map.of("tokens", tenants.tokens(tenant)));
  }

  /** Revokes the tenant's token with this id (a listed id): 200, or 404 when it has none. */
  @Post("/tenants/{tenant}/tokens/{id}/revoke")
  public HttpResponse<String> revokeById(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant, String id)
      throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    Names.check("tenant", tenant);
    if (!tenants.revokeById(tenant, id)) {
      throw Problem.notFound("tenant '" + tenant + "' has no token with id '" + id + "'");
    }
    return Json.respond(HttpStatus.OK, Map.of("revoked", true));
  }

  @Post("/tenants/{tenant}/tokens")
  public HttpResponse<String> createToken(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      @Body @Nullable String body)
      throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    Names.check("tenant", tenant);
    JsonNode json = Json.object(body);
    String role = Json.requiredText(json, "role");
    if (!ROLES.contains(role)) {
      throw Problem.badRequest("role '" + role + "' is unknown: use admin, deployer or reader");
    }
    if (!tenants.exists(tenant)) {
      throw Problem.notFound(
          "tenant '" + tenant + "' does not exist: create it with POST /internal/v1/tenants");
    }
    String description = json.hasNonNull("description") ? json.get("description").asText() : null;
    String token = tenants.createToken(tenant, role, description);
    return Json.respond(HttpStatus.CREATED, Map.of("token", token));
  }

  @Post("/auth/verify")
  public HttpResponse<String> verify(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      @Body @Nullable String body)
      throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    String token = Json.requiredText(Json.object(body), "token");
    return tenants
        .verify(token)
        .map(p -> Json.respond(HttpStatus.OK, Map.of("tenant", p.tenant(), "role", p.role())))
        .orElseThrow(() -> Problem.unauthorized("the token is unknown or revoked"));
  }

  /** Revokes an API token ({@code {"token":"sc_…"}}): 200, or 404 when it is unknown. */
  @Post("/tokens/revoke")
  public HttpResponse<String> revoke(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      @Body @Nullable String body)
      throws SQLException {
    auth.requireService(authorization, Authenticator.TENANT_ADMINISTRATION);
    String token = Json.requiredText(Json.object(body), "token");
    if (!tenants.revoke(token)) {
      throw Problem.notFound("no such token");
    }
    return Json.respond(HttpStatus.OK, Map.of("revoked", true));
  }

  /**
   * Mints the state credential of a run that holds the workspace lock ({@code {"runId":..,
   * "fencingToken":..}}): 201 {@code {"credential":"scr_…"}}, shown only now; 409 when the fencing
   * token is stale or the run already ended (docs/adr/0013).
   */
  @Post("/tenants/{tenant}/workspaces/{ws}/run-credentials")
  public HttpResponse<String> mintRunCredential(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    requirePlannerFor(authorization, tenant, ws);
    JsonNode json = Json.object(body);
    String runId = Json.requiredText(json, "runId");
    long token =
        nonNegativeLong(json, "fencingToken", ": the token of the workspace lock the run holds");
    return switch (runCredentials.mint(tenant, ws, runId, token)) {
      case RunCredentialStore.Issued issued ->
          Json.respond(HttpStatus.CREATED, Map.of("credential", issued.credential()));
      case RunCredentialStore.Refused refused -> throw Problem.conflict(refused.detail());
    };
  }

  /** Revokes a run's state credential (the run ended): 200, idempotent; 404 when it has none. */
  @Delete("/tenants/{tenant}/workspaces/{ws}/run-credentials/{runId}")
  public HttpResponse<String> revokeRunCredential(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String runId)
      throws SQLException {
    requirePlannerFor(authorization, tenant, ws);
    if (!runCredentials.revoke(tenant, ws, runId)) {
      throw Problem.notFound(
          "run '" + runId + "' has no state credential in workspace '" + ws + "'");
    }
    return Json.respond(HttpStatus.OK, Map.of("revoked", true));
  }

  /** The workspace's current state, for the planner or the workspace's active run credential. */
  @Get("/tenants/{tenant}/workspaces/{ws}/state")
  public HttpResponse<String> state(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant, String ws)
      throws SQLException {
    Names.check("tenant", tenant);
    Names.check("workspace", ws);
    auth.requirePlannerOrRunCredential(authorization, tenant, ws);
    var state = states.currentState(tenant, ws);
    return Json.respond(
        HttpStatus.OK, TerraformStateV4.render(state, UUID.randomUUID().toString()));
  }

  /**
   * The outcomes recorded for the actions of a run in the workspace (the first per action id): 200
   * {@code {"outcomes":[{"actionId","address","outcome","serial"}]}}, empty for an unknown run. A
   * planner carrying a run on after a restart reads it (docs/adr/0035). The planner only.
   */
  @Get("/tenants/{tenant}/workspaces/{ws}/runs/{runId}/action-outcomes")
  public HttpResponse<String> actionOutcomes(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String runId)
      throws SQLException {
    requirePlannerFor(authorization, tenant, ws);
    var outcomes =
        states.recordedOutcomes(tenant, ws, runId).stream()
            .map(
                o -> {
                  Map<String, Object> m = new LinkedHashMap<>();
                  m.put("actionId", o.actionId());
                  m.put("address", o.address());
                  m.put("outcome", o.outcome());
                  m.put("serial", o.serial());
                  return m;
                })
            .toList();
    return Json.respond(HttpStatus.OK, Map.of("outcomes", outcomes));
  }

  /**
   * Opens a run that was just granted the workspace lock ({@code {"runId":..,"fencingToken":..}}),
   * in one request (docs/adr/0025) and two database round trips (ADR 0047): registers the fencing
   * token (as {@code POST .../fencing}), mints the run's state credential (as {@code POST
   * .../run-credentials}), reads the host keys the run must enforce (as {@code GET .../host-keys})
   * and the current state (as {@code GET .../state}). 201 {@code {"credential", "hostKeys": [...],
   * "serial", "state": {v4}}}; 409 when the fencing token is stale (nothing written) or the run
   * already ended. The planner only.
   */
  @Post("/tenants/{tenant}/workspaces/{ws}/run-openings")
  public HttpResponse<String> openRun(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    requirePlannerFor(authorization, tenant, ws);
    JsonNode json = Json.object(body);
    String runId = Json.requiredText(json, "runId");
    long token =
        nonNegativeLong(json, "fencingToken", ": the token of the workspace lock the run holds");
    String credential = RunCredentialProof.newCredential();
    RunOpening opening =
        history.openings().open(tenant, ws, token, runId, RunCredentialProof.digest(credential));
    if (opening.newerToken().isPresent()) {
      throw Problem.conflict(
          "fencing token "
              + token
              + " is older than the newest token "
              + opening.newerToken().get()
              + " seen for workspace '"
              + ws
              + "': the lock was lost; acquire it again");
    }
    if (!opening.credentialIssued()) {
      throw Problem.conflict(RunCredentialStore.revokedDetail(runId));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("fencingToken", token);
    out.put("credential", credential);
    out.put(
        "hostKeys", opening.hostKeys().stream().map(InternalHostKeyController::toJson).toList());
    out.put("serial", opening.state().serial());
    out.put("state", TerraformStateV4.render(opening.state(), UUID.randomUUID().toString()));
    return Json.respond(HttpStatus.CREATED, out);
  }

  @Post("/tenants/{tenant}/workspaces/{ws}/fencing")
  public HttpResponse<String> fencing(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    requirePlannerFor(authorization, tenant, ws);
    long token = nonNegativeLong(Json.object(body), "token", "");
    Optional<Long> newer = states.advanceFencing(tenant, ws, token);
    if (newer.isPresent()) {
      throw Problem.conflict(
          "fencing token "
              + token
              + " is older than the newest token "
              + newer.get()
              + " seen for workspace '"
              + ws
              + "': the lock was lost; acquire it again");
    }
    return Json.respond(HttpStatus.OK, Map.of("token", token));
  }

  /**
   * Marks an instance tainted or clears the mark (stagecraft taint/untaint), for a holder of the
   * workspace lock. 200 {@code {"serial":N}}; 400 invalid address; 404 no such instance; 409 stale
   * fencing token (type {@code .../stale-fencing-token}) or untaint of an instance that is not
   * tainted (type {@code .../not-tainted}).
   */
  @Post("/tenants/{tenant}/workspaces/{ws}/instances/taint")
  public HttpResponse<String> taint(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    requirePlannerFor(authorization, tenant, ws);
    JsonNode json = Json.object(body);
    String address = Json.requiredText(json, "address");
    JsonNode tainted = json.get("tainted");
    if (tainted == null || !tainted.isBoolean()) {
      throw Problem.badRequest("field 'tainted' is required and must be true or false");
    }
    long token =
        nonNegativeLong(json, "fencingToken", ": the token of the workspace lock the caller holds");
    String actor = json.hasNonNull("actor") ? json.get("actor").asText() : null;
    TaintDecision decision =
        history.changes().changeTaint(tenant, ws, address, tainted.asBoolean(), token, actor);
    if (decision.accepted()) {
      return Json.respond(HttpStatus.OK, Map.of("serial", decision.serial()));
    }
    throw switch (decision.rejection()) {
      case INVALID_ADDRESS -> Problem.badRequest(decision.error());
      case NO_SUCH_INSTANCE -> Problem.notFound(decision.error());
      case NOT_TAINTED -> conflict("Not tainted", decision.error());
      case STALE_FENCING_TOKEN -> conflict("Stale fencing token", decision.error());
    };
  }

  /**
   * Checks the planner's token, then the tenant and workspace names (400 when not valid), in order.
   */
  private void requirePlannerFor(String authorization, String tenant, String ws) {
    auth.requireService(authorization, Authenticator.PLANNER);
    Names.check("tenant", tenant);
    Names.check("workspace", ws);
  }

  /**
   * The value of {@code field} in {@code json}, a non-negative integer that fits a long.
   *
   * @param hint appended to the error (what the value is), or empty
   * @throws Problem 400 when the field is missing or not such an integer
   */
  private static long nonNegativeLong(JsonNode json, String field, String hint) {
    JsonNode value = json.get(field);
    if (value == null
        || !value.canConvertToLong()
        || !value.isIntegralNumber()
        || value.asLong() < 0) {
      throw Problem.badRequest(
          "field '" + field + "' is required and must be a non-negative integer" + hint);
    }
    return value.asLong();
  }

  /** A 409 whose type tells the caller which conflict it is. */
  private static Problem conflict(String title, String detail) {
    return new Problem(Problem.typeFor(title), 409, title, detail, null);
  }
}
