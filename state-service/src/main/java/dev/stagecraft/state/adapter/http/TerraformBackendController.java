package dev.stagecraft.state.adapter.http;

import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.application.StateHistory;
import dev.stagecraft.state.history.DocumentDecider;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.CustomHttpMethod;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.io.InputStream;
import java.sql.SQLException;

/**
 * Terraform's HTTP backend ({@code backend "http"}) per workspace, under {@code
 * /tf/v1/workspaces/{ws}}: {@code GET/POST/DELETE .../state} and {@code LOCK/UNLOCK .../lock}.
 * Authentication is HTTP basic auth whose password is an API token (or a bearer token); the tenant
 * comes from the token, so another tenant's workspace is simply not there.
 *
 * <ul>
 *   <li>{@code GET state} → 200 with the v4 JSON and {@code Content-MD5} (base64 MD5 of the body),
 *       or 204 when the workspace has no state; a state that is still exactly a pushed document is
 *       sent as the pushed bytes, streamed from the database;
 *   <li>{@code POST state[?ID=lock id]} → reads the body as a stream into a temporary file (never
 *       into memory; 413 over {@code stagecraft.state.max-document-size}, ADR 0022), checking the
 *       JSON and v4 shape as it arrives (400 with every problem's JSON path) and {@code
 *       Content-MD5} when sent (400 on mismatch), the lock (423 when locked and no ID was sent; 409
 *       when the ID is not the holder's; checked while the body arrives, ADR 0026), the lineage and
 *       serial (409 when the lineage differs or the serial goes backwards), the fencing token; 200
 *       when stored;
 *   <li>{@code DELETE state[?ID=]} → same lock rules; records {@code state_deleted} (nothing is
 *       physically deleted); 200;
 *   <li>{@code LOCK lock} with Terraform's LockInfo → 200, or 423 with the holder's LockInfo;
 *   <li>{@code UNLOCK lock} with the holder's LockInfo → 200; with an empty body (Terraform's
 *       {@code force-unlock}) a force-unlock of {@code ?ID=} (or of the current lock for an admin),
 *       with {@code ?reason=}; 409 when the ID is not the holder's.
 * </ul>
 *
 * <p>Reads are open to every role; writes and locks need an admin or deployer token (403).
 */
@Controller("/tf/v1/workspaces/{ws}")
@ExecuteOn(TaskExecutors.BLOCKING)
public class TerraformBackendController {
  private final Authenticator auth;
  private final StateStore states;
  private final StateHistory history;
  private final BackendLocks locks;
  private final DocumentUploads uploads;
  private final DocumentSizes sizes;

  public TerraformBackendController(
      Authenticator auth,
      StateStore states,
      StateHistory history,
      BackendLocks locks,
      DocumentUploads uploads,
      DocumentSizes sizes) {
    this.sizes = sizes;
    this.auth = auth;
    this.states = states;
    this.history = history;
    this.locks = locks;
    this.uploads = uploads;
  }

  @Get("/state")
  public HttpResponse<?> get(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String ws)
      throws SQLException {
    Principal principal = auth.requireBackendToken(authorization);
    return sizes.read(
        StateDocuments.respondCurrent(states, principal.tenant(), Names.check("workspace", ws)));
  }

  @Post("/state")
  public HttpResponse<String> post(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      @Header("Content-MD5") @Nullable String contentMd5,
      @Header(HttpHeaders.CONTENT_LENGTH) @Nullable Long contentLength,
      String ws,
      @QueryValue("ID") @Nullable String id,
      HttpRequest<?> request)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireBackendToken(authorization));
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
            id,
            body,
            contentMd5,
            contentLength,
            false);
    sizes.pushed(contentLength);
    return HttpResponse.<String>ok("{\"serial\":" + outcome.serial() + "}")
        .contentType("application/json");
  }

  @Delete("/state")
  public HttpResponse<String> delete(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      @QueryValue("ID") @Nullable String id)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireBackendToken(authorization));
    Names.check("workspace", ws);
    long token = locks.writeToken(principal, ws, id);
    StateDocuments.requireAccepted(
        history
            .changes()
            .delete(
                principal.tenant(), ws, token, principal.actor(), "DELETE over the HTTP backend"));
    return HttpResponse.<String>ok("{}").contentType("application/json");
  }

  @CustomHttpMethod(method = "LOCK", value = "/lock")
  public HttpResponse<String> lock(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireBackendToken(authorization));
    return locks.lock(principal, Names.check("workspace", ws), body);
  }

  @CustomHttpMethod(method = "UNLOCK", value = "/lock")
  public HttpResponse<String> unlock(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String ws,
      @QueryValue("ID") @Nullable String id,
      @QueryValue("reason") @Nullable String reason,
      @Body @Nullable String body)
      throws SQLException {
    Principal principal = Authenticator.requireWriter(auth.requireBackendToken(authorization));
    return locks.unlock(principal, Names.check("workspace", ws), body, id, reason);
  }
}
