package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.application.StateHistory;
import dev.stagecraft.state.history.OutputsDecision;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.Map;

/**
 * A run's root outputs, recorded after it applied every action (docs/adr/0064): the planner sends
 * them with the run's state credential and fencing token; the state service appends {@code
 * outputs_written} unless the token is stale.
 */
@Controller("/internal/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalOutputsController {
  private final Authenticator auth;
  private final StateHistory history;

  public InternalOutputsController(Authenticator auth, StateHistory history) {
    this.auth = auth;
    this.history = history;
  }

  /**
   * {@code {"fencingToken": N, "outputs": {name: {"value", "type", "sensitive"}}}} with the run's
   * active credential as bearer token: the whole set replaces the state's outputs. 200 {@code
   * {"serial": N, "changed": true|false}}; 400 outputs not in Terraform's v4 form; 401 not an
   * active credential of this workspace's run; 409 stale fencing token (type {@code
   * .../stale-fencing-token}).
   */
  @Post("/tenants/{tenant}/workspaces/{ws}/outputs")
  public HttpResponse<String> record(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    Names.check("tenant", tenant);
    Names.check("workspace", ws);
    String runId = auth.requireRunCredential(authorization, tenant, ws);
    JsonNode json = Json.object(body);
    JsonNode token = json.get("fencingToken");
    if (token == null
        || !token.isIntegralNumber()
        || !token.canConvertToLong()
        || token.asLong() < 0) {
      throw Problem.badRequest(
          "field 'fencingToken' is required and must be a non-negative integer: the token of the"
              + " workspace lock the run holds");
    }
    JsonNode outputs = json.get("outputs");
    if (outputs == null || !outputs.isObject()) {
      throw Problem.badRequest("field 'outputs' is required and must be an object");
    }
    OutputsDecision decision =
        history
            .changes()
            .recordOutputs(
                tenant,
                ws,
                runId,
                token.asLong(),
                EventCodec.mapper().convertValue(outputs, Map.class));
    if (decision.accepted()) {
      return Json.respond(
          HttpStatus.OK,
          Map.of("serial", decision.serial(), "changed", !decision.events().isEmpty()));
    }
    throw switch (decision.rejection()) {
      case INVALID_OUTPUTS -> Problem.badRequest(decision.error());
      case STALE_FENCING_TOKEN ->
          new Problem(
              Problem.typeFor("Stale fencing token"),
              409,
              "Stale fencing token",
              decision.error(),
              null);
    };
  }
}
