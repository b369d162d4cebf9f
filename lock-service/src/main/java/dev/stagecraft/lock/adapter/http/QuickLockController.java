package dev.stagecraft.lock.adapter.http;

import dev.stagecraft.lock.adapter.LockService;
import dev.stagecraft.lock.adapter.db.QuickConnections;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.servicekit.http.ServiceAuth;
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
import java.sql.SQLException;
import java.util.Map;

/**
 * The <em>quick route</em> of the workspace lock commands ({@code
 * /internal/v1/quick/tenants/{tenant}/workspaces/{ws}/lock}, ADR 0030): acquire without waiting,
 * heartbeat, release, show and force-release, with the bodies and answers of {@link
 * LockController}.
 *
 * <p>Runs synchronously on the Netty event loop that received the request (no {@code @ExecuteOn}):
 * no hand-off to a worker thread and back, which is what sets the lock commands' p99 on a busy
 * 2-core machine (docs/benchmarks.md). To keep the loop from ever waiting, each command runs on one
 * of {@link QuickConnections}' own connections — never the pool — bounded by their statement and
 * socket timeouts. When no such connection is idle (one failed or timed out and is being re-opened
 * in the background) or the database does not answer in time, the command answers {@code 503} with
 * {@code Retry-After: 1} and a problem of type {@code …/quick-path-unavailable}: the client repeats
 * it on the waiting route ({@link LockController}), whose meaning is the same. After a timeout the
 * command may have committed (the database went silent after the commit): every command here is
 * safe to repeat — acquire is idempotent by holder, heartbeat and release are idempotent, a
 * repeated force-release answers 409. An acquire with {@code waitSeconds > 0} is refused here with
 * 400 (a long poll belongs on the waiting route).
 */
@Controller("/internal/v1/quick/tenants/{tenant}/workspaces/{ws}/lock")
public class QuickLockController {
  /** The problem type of a 503 from this route. */
  public static final String UNAVAILABLE_TYPE = Problem.typeFor("Quick Path Unavailable");

  private final ServiceAuth auth;
  private final LockService locks;
  private final QuickConnections connections;

  public QuickLockController(ServiceAuth auth, LockService locks, QuickConnections connections) {
    this.auth = auth;
    this.locks = locks;
    this.connections = connections;
  }

  @Post
  public HttpResponse<String> acquire(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    LockController.check(tenant, ws);
    LockController.AcquireRequest request = LockController.AcquireRequest.parse(body);
    if (!request.waitFor().isZero()) {
      throw Problem.badRequest(
          "field 'waitSeconds' must be 0 on the quick route, which answers at once: for a"
              + " server-side wait POST /internal/v1/tenants/"
              + tenant
              + "/workspaces/"
              + ws
              + "/lock");
    }
    try {
      return LockController.acquired(
          connections.run(
              c ->
                  locks.acquireNow(
                      c,
                      tenant,
                      ws,
                      request.holder(),
                      request.lease(),
                      request.info(),
                      request.enqueue(),
                      request.coalescingKey())),
          request.holder());
    } catch (QuickConnections.Unavailable e) {
      return unavailable(e);
    }
  }

  @Post("/{lockId}/heartbeat")
  public HttpResponse<String> heartbeat(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String lockId)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    LockController.check(tenant, ws);
    try {
      return LockController.heartbeatAnswer(
          connections.run(c -> locks.heartbeat(c, tenant, ws, lockId)));
    } catch (QuickConnections.Unavailable e) {
      return unavailable(e);
    }
  }

  @Delete("/{lockId}")
  public HttpResponse<String> release(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String lockId)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    LockController.check(tenant, ws);
    try {
      connections.run(
          c -> {
            locks.release(c, tenant, ws, lockId);
            return null;
          });
    } catch (QuickConnections.Unavailable e) {
      return unavailable(e);
    }
    return Json.respond(HttpStatus.OK, Map.of("released", lockId));
  }

  /** Force-unlock, as {@link LockController#forceRelease}. */
  @Post("/{lockId}/force-release")
  public HttpResponse<String> forceRelease(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String lockId,
      @Body @Nullable String body)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    LockController.check(tenant, ws);
    LockController.ForceReleaseRequest request =
        LockController.ForceReleaseRequest.parse(body, lockId);
    try {
      return LockController.forceReleased(
          connections.run(
              c ->
                  locks.forceRelease(
                      c,
                      tenant,
                      ws,
                      lockId,
                      request.actor(),
                      request.reason(),
                      request.via(),
                      request.clientLockId())),
          ws,
          lockId);
    } catch (QuickConnections.Unavailable e) {
      return unavailable(e);
    }
  }

  @Get
  public HttpResponse<String> show(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant, String ws)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    LockController.check(tenant, ws);
    try {
      return LockController.shown(connections.run(c -> locks.view(c, tenant, ws)));
    } catch (QuickConnections.Unavailable e) {
      return unavailable(e);
    }
  }

  private static HttpResponse<String> unavailable(QuickConnections.Unavailable e) {
    return new Problem(
            UNAVAILABLE_TYPE,
            503,
            "Quick Path Unavailable",
            e.getMessage()
                + ": the command may or may not have taken effect; repeat it (acquire by the same"
                + " holder, heartbeat and release are idempotent) on the waiting route — the same"
                + " path without '/quick' — or here after Retry-After",
            null)
        .response()
        .header(HttpHeaders.RETRY_AFTER, "1");
  }
}
