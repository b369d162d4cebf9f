package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.application.StateHistory;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.StateDiff;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.io.InputStream;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Public endpoints ({@code /api/v1}). The tenant always comes from the API token, never from the
 * request, so a tenant can only ever see its own workspaces.
 */
@Controller("/api/v1/workspaces")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicStateController {
  private final Authenticator auth;
  private final StateStore states;
  private final StateHistory history;
  private final BackendLocks locks;
  private final DocumentUploads uploads;

  public PublicStateController(
      Authenticator auth,
      StateStore states,
      StateHistory history,
      BackendLocks locks,
      DocumentUploads uploads) {
    this.auth = auth;
    this.states = states;
    this.history = history;
    this.locks = locks;
    this.uploads = uploads;
  }

  /**
   * The workspace's root outputs as its current state holds them: 200 {@code {"workspace",
   * "serial", "outputs": {name: {"value", "type", "sensitive"}}}}, 404 when the workspace has no
   * state. For an API token of any role, or a run's state credential of any workspace of the same
   * tenant (a planner reading a remote state with the run's credential, docs/adr/0063); the tenant
   * is always the token's or credential's.
   */
  @Get("/{ws}/outputs")
  public HttpResponse<String> outputs(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    String tenant = auth.requireOutputsReader(authorization);
    Names.check("workspace", ws);
    WorkspaceState state = states.currentState(tenant, ws);
    if (state.isEmpty()) {
      throw Problem.notFound(
          "workspace '" + ws + "' has no state: it was never applied, or its state was deleted");
    }
    Object outputs = TerraformStateV4.render(state, state.lineage()).get("outputs");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("workspace", ws);
    body.put("serial", state.serial());
    body.put("outputs", outputs == null ? Map.of() : outputs);
    return Json.respond(HttpStatus.OK, body);
  }

  /** Every version (serial, sequence, time, type, runId, actor, digest), oldest first; 404 none. */
  @Get("/{ws}/state/versions")
  public HttpResponse<String> versions(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    List<StateStore.Version> versions =
        states.versions(principal.tenant(), Names.check("workspace", ws));
    if (versions.isEmpty()) {
      throw noVersions(ws);
    }
    List<Map<String, Object>> body =
        versions.stream()
            .map(
                v -> {
                  Map<String, Object> json = new LinkedHashMap<>();
                  json.put("serial", v.serial());
                  json.put("sequence", v.sequence());
                  json.put("time", v.time().toString());
                  json.put("type", v.type());
                  json.put("runId", v.runId());
                  json.put("actor", v.actor());
                  json.put("digest", "sha256:" + v.digest());
                  return json;
                })
            .toList();
    return Json.respond(HttpStatus.OK, body);
  }

  /** One version as v4 JSON (with {@code Content-MD5}); 404 when there is no such version. */
  @Get("/{ws}/state/versions/{serial}")
  public HttpResponse<byte[]> version(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws, long serial)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    return StateDocuments.respond(versionOf(principal, ws, serial));
  }

  /** What changed from version {@code from} to {@code to} (sensitive values masked). */
  @Get("/{ws}/state/diff")
  public HttpResponse<String> diff(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      @QueryValue("from") long from,
      @QueryValue("to") long to)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    WorkspaceState a = versionOf(principal, ws, from);
    WorkspaceState b = versionOf(principal, ws, to);
    return Json.respond(
        HttpStatus.OK,
        StateDiff.between(
            TerraformStateV4.render(a, a.lineage()), TerraformStateV4.render(b, b.lineage())));
  }

  /**
   * Rollback: {@code {"serial":N,"lockId":"…"}} writes version N again with serial current + 1,
   * only while {@code lockId} holds the workspace lock (409/423 otherwise). Audited as {@code
   * state_rolled_back} with the actor.
   */
  @Post("/{ws}/state/rollback")
  public HttpResponse<String> rollback(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireApiToken(authorization));
    Names.check("workspace", ws);
    JsonNode json = Json.object(body);
    JsonNode serial = json.get("serial");
    if (serial == null || !serial.isIntegralNumber() || serial.asLong() < 0) {
      throw Problem.badRequest("field 'serial' is required: the version to roll back to");
    }
    String lockId = Json.requiredText(json, "lockId");
    WorkspaceState target = versionOf(principal, ws, serial.asLong());
    long token = locks.writeToken(principal, ws, lockId);
    DocumentDecider.Outcome outcome =
        StateDocuments.requireAccepted(
            history
                .changes()
                .rollback(
                    principal.tenant(), ws, token, principal.actor(), serial.asLong(), target));
    return Json.respond(
        HttpStatus.OK, Map.of("serial", outcome.serial(), "rolledBackTo", serial.asLong()));
  }

  /**
   * Push (import) a Terraform v4 state, with Terraform's {@code state push} rules: refused when the
   * lineage differs or the serial is lower, unless {@code ?force=true}. {@code ?lockId=} when the
   * caller holds the workspace lock (423 when it is locked by someone else). The body is read as a
   * stream and stored once (ADR 0022; 413 over {@code stagecraft.state.max-document-size}).
   */
  @Post("/{ws}/state")
  public HttpResponse<String> push(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      @Header("Content-MD5") @Nullable String contentMd5,
      @Header(HttpHeaders.CONTENT_LENGTH) @Nullable Long contentLength,
      String ws,
      @QueryValue("force") @Nullable Boolean force,
      @QueryValue("lockId") @Nullable String lockId,
      HttpRequest<?> request)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireApiToken(authorization));
    Names.check("workspace", ws);
    // the body read ahead of the parser (ADR 0036), claimed only once the request is allowed
    InputStream body = PrefetchingBodyStream.of(request);
    DocumentDecider.Outcome outcome =
        StateDocuments.receiveAndPush(
            history.pushes(),
            uploads,
            locks,
            principal,
            ws,
            lockId,
            body,
            contentMd5,
            contentLength,
            Boolean.TRUE.equals(force));
    return Json.respond(HttpStatus.OK, Map.of("serial", outcome.serial()));
  }

  /**
   * Takes the workspace lock (the one runs take) for the caller: body = LockInfo-like JSON ({@code
   * ID} optional: generated). 200 with the LockInfo (its {@code ID} is the lock ID to send back),
   * 423 with the holder's LockInfo.
   */
  @Post("/{ws}/lock")
  public HttpResponse<String> lock(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireApiToken(authorization));
    var info = BackendLocks.parseLockInfo(body, false);
    if (!info.hasNonNull("Who")) {
      info.put("Who", principal.actor());
    }
    return locks.lock(principal, Names.check("workspace", ws), info.toString());
  }

  /** Releases a lock the caller took with {@code POST .../lock} (409 when not the holder's). */
  @Delete("/{ws}/lock/{lockId}")
  public HttpResponse<String> unlock(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws, String lockId)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireApiToken(authorization));
    return locks.unlock(
        principal, Names.check("workspace", ws), "{\"ID\":" + Json.write(lockId) + "}", null, null);
  }

  /**
   * Force-unlock: {@code {"reason":"…"}} (required) releases the lock named {@code lockId} whoever
   * holds it; recorded in the history ({@code lock_force_unlocked}, with the actor) and published
   * as {@code dev.stagecraft.lock.force-unlocked}. 404 when not locked, 409 when {@code lockId} is
   * not the holder's.
   */
  @Post("/{ws}/lock/{lockId}/force-unlock")
  public HttpResponse<String> forceUnlock(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      String lockId,
      @Body @Nullable String body)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    String reason = Json.requiredText(Json.object(body), "reason");
    var released =
        locks.forceUnlock(principal, Names.check("workspace", ws), lockId, reason, "rest");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("unlocked", lockId);
    out.put("holder", released.holder());
    out.put("fencingToken", released.fencingToken());
    return Json.respond(HttpStatus.OK, out);
  }

  private WorkspaceState versionOf(Principal principal, String ws, long serial)
      throws SQLException {
    Names.check("workspace", ws);
    return states
        .version(principal.tenant(), ws, serial)
        .orElseThrow(
            () ->
                Problem.notFound(
                    "workspace '"
                        + ws
                        + "' has no state version "
                        + serial
                        + ": list them with GET /api/v1/workspaces/"
                        + ws
                        + "/state/versions"));
  }

  private static Problem noVersions(String ws) {
    return Problem.notFound(
        "workspace '" + ws + "' has no state versions: it does not exist or was never written");
  }

  /**
   * The current state as v4 JSON with {@code Content-MD5}; 204 when empty. A state that is still
   * exactly a pushed document is sent as the pushed bytes, streamed from the database.
   */
  @Get("/{ws}/state")
  public HttpResponse<?> state(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    return StateDocuments.respondCurrent(states, principal.tenant(), Names.check("workspace", ws));
  }

  @Get("/{ws}/state/events")
  public HttpResponse<String> events(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    Principal principal = auth.requireApiToken(authorization);
    List<Map<String, Object>> body =
        states.history(principal.tenant(), Names.check("workspace", ws)).stream()
            .map(
                e -> {
                  Map<String, Object> json = new LinkedHashMap<>();
                  json.put("sequence", e.sequence());
                  json.put("type", e.type());
                  json.put("runId", e.runId());
                  json.put("actionId", e.actionId());
                  json.put("address", e.address());
                  json.put("actor", e.actor());
                  json.put("time", e.time().toString());
                  return json;
                })
            .toList();
    return Json.respond(HttpStatus.OK, body);
  }
}
