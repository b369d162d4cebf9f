package dev.stagecraft.lock.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.lock.adapter.LockService;
import dev.stagecraft.lock.lease.LockDecider.AcquireResult;
import dev.stagecraft.lock.lease.LockDecider.HeartbeatResult;
import dev.stagecraft.lock.lease.LockLease;
import dev.stagecraft.lock.lease.QueuedHolder;
import dev.stagecraft.lock.lease.WorkspaceLock;
import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Names;
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
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Workspace lock endpoints ({@code /internal/v1/...}), guarded by the service token.
 *
 * <p>Runs on the {@code IO} executor (platform threads), not {@code BLOCKING} (virtual threads):
 * each command is two blocking JDBC round trips, and on a virtual thread every one of them parks
 * and is resumed through the JDK's I/O poller — measured 0.83 vs 0.58 ms per lock+unlock cycle (ADR
 * 0020). A waiting acquire ({@code waitSeconds}) holds its platform thread while it waits. The only
 * route for lock commands: the event-loop route of ADR 0030 was removed (ADR 0072).
 */
@Controller("/internal/v1/tenants/{tenant}/workspaces/{ws}/lock")
@ExecuteOn(TaskExecutors.IO)
public class LockController {
  static final long MAX_LEASE_SECONDS = 3600;
  static final long MAX_WAIT_SECONDS = 60;
  static final List<String> FORCE_UNLOCK_VIA = List.of("rest", "terraform-http-backend");

  private final ServiceAuth auth;
  private final LockService locks;

  public LockController(ServiceAuth auth, LockService locks) {
    this.auth = auth;
    this.locks = locks;
  }

  @Post
  public HttpResponse<String> acquire(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      @Body @Nullable String body)
      throws SQLException, InterruptedException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    check(tenant, ws);
    AcquireRequest request = AcquireRequest.parse(body);
    AcquireResult result =
        locks.acquire(
            tenant,
            ws,
            request.holder(),
            request.lease(),
            request.waitFor(),
            request.info(),
            request.enqueue(),
            request.coalescingKey());
    return acquired(result, request.holder());
  }

  /** An acquire's body, checked (400 naming the field otherwise). */
  record AcquireRequest(
      String holder,
      Duration lease,
      Duration waitFor,
      String info,
      boolean enqueue,
      String coalescingKey) {

    static AcquireRequest parse(String body) {
      JsonNode json = Json.object(body);
      String holder = Json.requiredText(json, "holder");
      long leaseSeconds = seconds(json, "leaseSeconds", 30, 1, MAX_LEASE_SECONDS);
      long waitSeconds = seconds(json, "waitSeconds", 0, 0, MAX_WAIT_SECONDS);
      String info = json.hasNonNull("info") ? json.get("info").asText() : null;
      JsonNode queue = json.get("queue");
      if (queue != null && !queue.isNull() && !queue.isBoolean()) {
        throw Problem.badRequest("field 'queue' must be true or false");
      }
      boolean enqueue = queue == null || queue.isNull() || queue.asBoolean();
      String coalescingKey = null;
      JsonNode key = json.get("coalescingKey");
      if (key != null && !key.isNull()) {
        if (!key.isTextual() || key.asText().isBlank() || key.asText().length() > 200) {
          throw Problem.badRequest(
              "field 'coalescingKey' must be a non-empty string of at most 200 characters (what the"
                  + " request is for, e.g. \"apply:prod\")");
        }
        if (!enqueue) {
          throw Problem.badRequest(
              "field 'coalescingKey' only applies to queued requests: drop it or \"queue\": false");
        }
        coalescingKey = key.asText();
      }
      return new AcquireRequest(
          holder,
          Duration.ofSeconds(leaseSeconds),
          Duration.ofSeconds(waitSeconds),
          info,
          enqueue,
          coalescingKey);
    }
  }

  /** The answer to an acquire: 200 granted, 202 queued, 423 refused, 409 superseded. */
  static HttpResponse<String> acquired(AcquireResult result, String holder) {
    return switch (result) {
      case AcquireResult.Granted g -> {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockId", g.lease().lockId());
        out.put("fencingToken", g.lease().fencingToken());
        out.put("leaseExpiresAt", g.lease().leaseExpiresAt().toString());
        yield Json.respond(HttpStatus.OK, out);
      }
      case AcquireResult.Queued q ->
          Json.respond(HttpStatus.ACCEPTED, Map.of("queued", true, "position", q.position()));
      case AcquireResult.Refused r -> {
        Map<String, Object> out = lease(r.held());
        out.put("queueLength", r.queueLength());
        yield Json.respond(HttpStatus.valueOf(423), out);
      }
      case AcquireResult.Superseded x ->
          throw new Problem(
              Problem.typeFor("Superseded"),
              409,
              "Superseded",
              "the queued request of '"
                  + holder
                  + "' was replaced by a newer request from '"
                  + x.byHolder()
                  + "' with the same coalescing key '"
                  + x.coalescingKey()
                  + "': it is no longer queued; stop waiting (the newer request does the work)",
              null);
    };
  }

  @Post("/{lockId}/heartbeat")
  public HttpResponse<String> heartbeat(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String lockId)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    check(tenant, ws);
    return heartbeatAnswer(locks.heartbeat(tenant, ws, lockId));
  }

  /** 200 with the new expiry, or 410 when the lease is lost. */
  static HttpResponse<String> heartbeatAnswer(HeartbeatResult result) {
    return switch (result) {
      case HeartbeatResult.Renewed r ->
          Json.respond(HttpStatus.OK, Map.of("leaseExpiresAt", r.leaseExpiresAt().toString()));
      case HeartbeatResult.Lost l ->
          throw new Problem(
              410, "Gone", l.reason() + ": stop writing, acquire the lock again and re-plan");
    };
  }

  @Delete("/{lockId}")
  public HttpResponse<String> release(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String lockId)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    check(tenant, ws);
    locks.release(tenant, ws, lockId);
    return Json.respond(HttpStatus.OK, Map.of("released", lockId));
  }

  /**
   * Force-unlock: releases the lock held as {@code lockId}, whoever holds it, auditing {@code
   * actor} and {@code reason} (both required). 200 with the released lease; 409 when {@code lockId}
   * does not hold the lock (released, expired or another lock now). The audit row is the outbox of
   * {@code dev.stagecraft.lock.force-unlocked}; optional {@code via} ({@code rest}, the default, or
   * {@code terraform-http-backend}) and {@code clientLockId} (the id the event names the lock by,
   * default {@code lockId}) go into that event.
   */
  @Post("/{lockId}/force-release")
  public HttpResponse<String> forceRelease(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization,
      String tenant,
      String ws,
      String lockId,
      @Body @Nullable String body)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    check(tenant, ws);
    ForceReleaseRequest request = ForceReleaseRequest.parse(body, lockId);
    return forceReleased(
        locks.forceRelease(
            tenant,
            ws,
            lockId,
            request.actor(),
            request.reason(),
            request.via(),
            request.clientLockId()),
        ws,
        lockId);
  }

  /** A force-release's body, checked (400 naming the field otherwise). */
  record ForceReleaseRequest(String actor, String reason, String via, String clientLockId) {
    static ForceReleaseRequest parse(String body, String lockId) {
      JsonNode json = Json.object(body);
      String actor = Json.requiredText(json, "actor");
      String reason = Json.requiredText(json, "reason");
      if (reason.isBlank()) {
        throw Problem.badRequest("field 'reason' must say why the lock is forced open");
      }
      String via = json.hasNonNull("via") ? json.get("via").asText() : "rest";
      if (!FORCE_UNLOCK_VIA.contains(via)) {
        throw Problem.badRequest(
            "field 'via' must be one of " + FORCE_UNLOCK_VIA + " (how the force-unlock came in)");
      }
      String clientLockId = lockId;
      if (json.hasNonNull("clientLockId")) {
        clientLockId = json.get("clientLockId").asText();
        if (clientLockId.isBlank()) {
          throw Problem.badRequest(
              "field 'clientLockId' must not be blank (the id the caller knows the lock by, e.g. a"
                  + " Terraform LockInfo ID): drop it to name the lock by its lock id");
        }
      }
      return new ForceReleaseRequest(actor, reason, via, clientLockId);
    }
  }

  /** 200 with the released lease, or 409 when {@code lockId} did not hold the lock. */
  static HttpResponse<String> forceReleased(Optional<LockLease> result, String ws, String lockId) {
    LockLease released =
        result.orElseThrow(
            () ->
                Problem.conflict(
                    "lock "
                        + lockId
                        + " does not hold workspace '"
                        + ws
                        + "' (already released, expired, or another lock holds it now):"
                        + " look up the current lock id with GET .../lock"));
    return Json.respond(HttpStatus.OK, lease(released));
  }

  /** A lease as JSON (all fields null when {@code lease} is null). */
  static Map<String, Object> lease(LockLease lease) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("holder", lease == null ? null : lease.holder());
    out.put("lockId", lease == null ? null : lease.lockId());
    out.put("fencingToken", lease == null ? null : lease.fencingToken());
    out.put("acquiredAt", lease == null ? null : lease.acquiredAt().toString());
    out.put("leaseExpiresAt", lease == null ? null : lease.leaseExpiresAt().toString());
    out.put("info", lease == null ? null : lease.info());
    return out;
  }

  @Get
  public HttpResponse<String> show(
      @Header(HttpHeaders.AUTHORIZATION) @Nullable String authorization, String tenant, String ws)
      throws SQLException {
    auth.require(authorization, HttpBeans.LOCK_CALLERS);
    check(tenant, ws);
    return shown(locks.view(tenant, ws));
  }

  /** The lock as {@code GET …/lock} shows it: the lease (or nulls) and the queue's holders. */
  static HttpResponse<String> shown(WorkspaceLock lock) {
    LockLease lease = lock.current();
    Map<String, Object> out = lease(lease);
    out.put("queue", lock.queue().stream().map(QueuedHolder::holder).toList());
    return Json.respond(HttpStatus.OK, out);
  }

  static void check(String tenant, String ws) {
    Names.check("tenant", tenant);
    Names.check("workspace", ws);
  }

  static long seconds(JsonNode json, String field, long fallback, long min, long max) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isIntegralNumber() || value.asLong() < min || value.asLong() > max) {
      throw Problem.badRequest(
          "field '" + field + "' must be an integer from " + min + " to " + max + " (seconds)");
    }
    return value.asLong();
  }
}
