package dev.stagecraft.planner.service.adapter.clients;

import static dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceLocks.enc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.plan.RemoteStateRead;
import dev.stagecraft.planner.plan.RemoteStateSource;
import dev.stagecraft.planner.service.run.StateAddresses;
import dev.stagecraft.planner.service.run.WorkspaceStates;
import dev.stagecraft.servicekit.http.InternalHttp;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@link WorkspaceStates} over state-service's internal HTTP API (docs/internal-api.md). Every
 * request that means the same when sent twice (reads, opening a run, minting and revoking its
 * credential, registering a fencing token, recording outputs) rides out a restart of state-service
 * or of its database ({@link RideOut}: repeated while it cannot be reached or answers 503, for up
 * to 60 s) instead of failing the run; a taint change is sent once.
 */
public final class HttpWorkspaceStates implements WorkspaceStates {
  private final InternalHttp http;
  private final StateAddresses own;
  private final RideOut rideOut;

  /** Remote state addresses are this state service's as the planner reaches it. */
  public HttpWorkspaceStates(InternalHttp http) {
    this(http, new StateAddresses(http.baseUrl()));
  }

  /**
   * @param own this Stagecraft's state addresses, which a remote state's http address must be one
   *     of
   */
  public HttpWorkspaceStates(InternalHttp http, StateAddresses own) {
    this(http, own, RideOut.byDefault());
  }

  HttpWorkspaceStates(InternalHttp http, StateAddresses own, RideOut rideOut) {
    this.http = http;
    this.own = own;
    this.rideOut = rideOut;
  }

  /** {@code request}, repeated while state-service restarts (see the class comment). */
  private InternalHttp.Response idempotent(Supplier<InternalHttp.Response> request) {
    return rideOut.repeat(request);
  }

  /**
   * {@code GET /api/v1/workspaces/{ws}/outputs} with {@code credential} (docs/internal-api.md): the
   * state service takes the tenant from the credential. An http address is first resolved to the
   * workspace it names ({@link StateAddresses}); nothing is ever requested from it.
   */
  @Override
  public RemoteStateRead remoteOutputs(String tenant, RemoteStateSource source, String credential) {
    String workspace = source.workspace();
    if (workspace == null) {
      StateAddresses.Resolved resolved = own.workspaceOf(source.httpAddress());
      if (resolved.workspace().isEmpty()) {
        return new RemoteStateRead.Refused(resolved.refusal());
      }
      workspace = resolved.workspace().get();
    }
    if (credential == null) {
      return new RemoteStateRead.Refused("the request has no credential to read it with.");
    }
    String path = "/api/v1/workspaces/" + enc(workspace) + "/outputs";
    InternalHttp.Response r =
        idempotent(() -> http.getAs(credential, path, Duration.ofSeconds(30)));
    return switch (r.status()) {
      case 200 ->
          RemoteStateRead.fromOutputs(r.json().get("outputs"), new ObjectMapper()).of(workspace);
      case 404 -> new RemoteStateRead.NotFound();
      case 400 ->
          new RemoteStateRead.Refused(
              "\"" + workspace + "\" is not a valid workspace name: " + jsonDetail(r));
      case 401, 403 ->
          new RemoteStateRead.Refused(
              "the state service refused the credential it was read with: " + jsonDetail(r));
      default ->
          throw new IllegalStateException(
              "could not read the outputs of workspace "
                  + workspace
                  + ": state-service answered "
                  + r.status()
                  + ": "
                  + r.body());
    };
  }

  /**
   * {@code POST .../outputs} with the run's credential (docs/internal-api.md, ADR 0064): the state
   * service checks the credential and the fencing token under the workspace's row lock.
   */
  @Override
  public void recordOutputs(
      String tenant,
      String workspace,
      String runCredential,
      long fencingToken,
      Map<String, Map<String, Object>> outputs) {
    if (runCredential == null) {
      throw new IllegalStateException("the run has no state credential to record its outputs");
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("fencingToken", fencingToken);
    body.put("outputs", outputs);
    InternalHttp.Response r =
        idempotent(
            () ->
                http.postAs(
                    runCredential,
                    path(tenant, workspace) + "/outputs",
                    body,
                    Duration.ofSeconds(30)));
    if (r.status() != 200) {
      throw new IllegalStateException(
          "the state service did not record the outputs: " + r.status() + " " + jsonDetail(r));
    }
  }

  @Override
  public String read(String tenant, String workspace) {
    return read(tenant, workspace, null);
  }

  @Override
  public String read(String tenant, String workspace, String runCredential) {
    String path = path(tenant, workspace) + "/state";
    InternalHttp.Response r =
        idempotent(
            () ->
                runCredential == null
                    ? http.get(path, Duration.ofSeconds(30))
                    : http.getAs(runCredential, path, Duration.ofSeconds(30)));
    if (r.status() == 200) {
      return r.body();
    }
    if (r.status() == 204 || r.status() == 404) {
      return null;
    }
    throw new IllegalStateException("state-service answered " + r.status() + ": " + r.body());
  }

  @Override
  public String mintRunCredential(
      String tenant, String workspace, String runId, long fencingToken) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("runId", runId);
    body.put("fencingToken", fencingToken);
    // minting again replaces the credential of an answer that was lost (never one revoked)
    InternalHttp.Response r =
        idempotent(
            () ->
                http.post(
                    path(tenant, workspace) + "/run-credentials", body, Duration.ofSeconds(10)));
    if (r.status() != 201) {
      throw new IllegalStateException(
          "the state service minted no state credential for run "
              + runId
              + ": "
              + r.status()
              + " "
              + r.body());
    }
    return r.json().get("credential").asText();
  }

  @Override
  public void revokeRunCredential(String tenant, String workspace, String runId) {
    InternalHttp.Response r =
        idempotent(
            () ->
                http.delete(
                    path(tenant, workspace) + "/run-credentials/" + enc(runId),
                    Duration.ofSeconds(10)));
    if (r.status() != 200 && r.status() != 404) {
      throw new IllegalStateException(
          "could not revoke the state credential of run "
              + runId
              + ": state-service answered "
              + r.status()
              + ": "
              + r.body());
    }
  }

  /** {@code GET .../runs/{runId}/action-outcomes} (docs/internal-api.md), service token. */
  @Override
  public Map<String, String> recordedOutcomes(String tenant, String workspace, String runId) {
    InternalHttp.Response r =
        idempotent(
            () ->
                http.get(
                    path(tenant, workspace) + "/runs/" + enc(runId) + "/action-outcomes",
                    Duration.ofSeconds(30)));
    if (r.status() != 200) {
      throw new IllegalStateException(
          "could not read the recorded outcomes of run "
              + runId
              + ": state-service answered "
              + r.status()
              + ": "
              + r.body());
    }
    Map<String, String> outcomes = new LinkedHashMap<>();
    for (JsonNode o : r.json().path("outcomes")) {
      outcomes.put(o.path("actionId").asText(), o.path("outcome").asText());
    }
    return outcomes;
  }

  @Override
  public KnownHostKeys knownHostKeys(String tenant, String workspace) {
    InternalHttp.Response r =
        idempotent(() -> http.get(path(tenant, workspace) + "/host-keys", Duration.ofSeconds(30)));
    if (r.status() != 200) {
      throw new IllegalStateException(
          "could not read the known host keys: state-service answered "
              + r.status()
              + ": "
              + r.body());
    }
    return hostKeys(r.json().path("keys"));
  }

  private static KnownHostKeys hostKeys(JsonNode list) {
    KnownHostKeys.Builder keys = KnownHostKeys.builder();
    for (JsonNode key : list) {
      keys.add(
          key.path("host").asText(),
          key.path("port").asInt(),
          key.path("publicKey").asText() + " " + key.path("origin").asText());
    }
    return keys.build();
  }

  /**
   * One {@code POST .../run-openings} (docs/internal-api.md): fencing token, credential, host keys
   * and state in one request and one state-service transaction.
   */
  @Override
  public OpenedRun openRun(String tenant, String workspace, String runId, long fencingToken) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("runId", runId);
    body.put("fencingToken", fencingToken);
    // opening again (an answer lost) mints a new credential in place of the lost one's
    InternalHttp.Response r =
        idempotent(
            () ->
                http.post(path(tenant, workspace) + "/run-openings", body, Duration.ofSeconds(30)));
    if (r.status() == 409) {
      throw new IllegalStateException(
          "the state service refused to open run " + runId + ": " + jsonDetail(r));
    }
    if (r.status() != 201) {
      throw new IllegalStateException(
          "could not open run "
              + runId
              + ": state-service answered "
              + r.status()
              + ": "
              + r.body());
    }
    JsonNode json = r.json();
    JsonNode state = json.get("state");
    return new OpenedRun(
        json.get("credential").asText(),
        hostKeys(json.path("hostKeys")),
        state == null || state.isNull() ? null : state.toString());
  }

  private static String jsonDetail(InternalHttp.Response r) {
    JsonNode json = jsonOrNull(r);
    return json == null ? r.body() : json.path("detail").asText(r.body());
  }

  @Override
  public void registerFencingToken(String tenant, String workspace, long token) {
    InternalHttp.Response r =
        idempotent(
            () ->
                http.post(
                    path(tenant, workspace) + "/fencing",
                    Map.of("token", token),
                    Duration.ofSeconds(10)));
    if (r.status() == 409) {
      throw new IllegalStateException(
          "fencing token " + token + " is older than one the state service has seen: " + r.body());
    }
    if (r.status() >= 300) {
      throw new IllegalStateException("state-service answered " + r.status() + ": " + r.body());
    }
  }

  @Override
  public TaintChange changeTaint(
      String tenant,
      String workspace,
      String address,
      boolean tainted,
      long fencingToken,
      String actor) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("address", address);
    body.put("tainted", tainted);
    body.put("fencingToken", fencingToken);
    body.put("actor", actor);
    InternalHttp.Response r =
        http.post(path(tenant, workspace) + "/instances/taint", body, Duration.ofSeconds(30));
    JsonNode json = jsonOrNull(r);
    String detail = json == null ? r.body() : json.path("detail").asText(r.body());
    return switch (r.status()) {
      case 200 -> new TaintChanged(json.get("serial").asLong());
      case 400 -> new TaintRefused(Refusal.INVALID_ADDRESS, detail);
      case 404 -> new TaintRefused(Refusal.NO_SUCH_INSTANCE, detail);
      case 409 -> {
        if (json != null && json.path("type").asText("").endsWith("/not-tainted")) {
          yield new TaintRefused(Refusal.NOT_TAINTED, detail);
        }
        throw new IllegalStateException(
            "the state service refused fencing token " + fencingToken + ": " + detail);
      }
      default ->
          throw new IllegalStateException("state-service answered " + r.status() + ": " + r.body());
    };
  }

  private static JsonNode jsonOrNull(InternalHttp.Response r) {
    try {
      return r.json();
    } catch (IllegalStateException e) {
      return null; // not JSON (say, a proxy's error page): reported with the raw body
    }
  }

  private static String path(String tenant, String workspace) {
    return "/internal/v1/tenants/" + enc(tenant) + "/workspaces/" + enc(workspace);
  }
}
