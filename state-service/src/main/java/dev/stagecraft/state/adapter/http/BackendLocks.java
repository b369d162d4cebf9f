package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.LruMaps;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.adapter.lock.LockServiceClient;
import dev.stagecraft.state.adapter.lock.LockServiceClient.Lease;
import dev.stagecraft.state.application.StateHistory;
import dev.stagecraft.state.history.StateEvent;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Workspace locks as Terraform's HTTP backend and the public API see them, on top of the
 * lock-service's lock (the one the planner's runs take).
 *
 * <p>A lock taken here is held in the lock service by holder {@code terraform:<LockInfo.ID>} with
 * the LockInfo JSON as its info, so a {@code 423} can give any client the holder's LockInfo as
 * Terraform wrote it. A lock held by a Stagecraft run is shown as a LockInfo whose {@code ID} is
 * the lock service's lock id and whose {@code Who} is the run's holder name.
 *
 * <p>Lease policy (ADR 0008): Terraform never heartbeats, so a lock taken here gets a long lease
 * ({@code stagecraft.backend.lock-lease-seconds}, default and maximum 3600 s), renewed by every
 * state upload under the lock; it ends by UNLOCK, by expiry, or by a force-unlock (lock ID and
 * reason, audited in the workspace history and published as {@code
 * dev.stagecraft.lock.force-unlocked}).
 *
 * <p>Thread-safe; every decision is the lock service's (one database transaction there). It
 * remembers which lease a client's lock ID named when it last saw it held, so that a push under a
 * held lock costs one lock-service call instead of two (ADR 0043).
 */
@Singleton
public final class BackendLocks {
  static final String HOLDER_PREFIX = "terraform:";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LockServiceClient locks;
  private final StateStore states;
  private final StateHistory history;
  private final long leaseSeconds;

  /**
   * Leases this instance saw held under a client's lock ID (granted by its LOCK, or renewed by a
   * push that checked the holder), by tenant, workspace and that ID: the lock service's lock id and
   * the lease's fencing token. A push under a remembered lock is one call to the lock service — the
   * heartbeat of that lock id, which succeeds only while that very lease is held, and whose token
   * never changes — instead of two (the current lease, then the heartbeat). When the heartbeat
   * fails the entry is dropped and the push takes the two calls, which say why it is refused.
   */
  private final Map<HeldKey, Held> held = LruMaps.bounded(REMEMBERED_LOCKS);

  /** How many held locks {@link #held} remembers. */
  static final int REMEMBERED_LOCKS = 10_000;

  private record HeldKey(String tenant, String workspace, String clientId) {}

  private record Held(String lockId, long fencingToken) {}

  public BackendLocks(
      LockServiceClient locks,
      StateStore states,
      StateHistory history,
      @Value("${stagecraft.backend.lock-lease-seconds:3600}") long leaseSeconds) {
    this.locks = locks;
    this.states = states;
    this.history = history;
    this.leaseSeconds = Math.max(1, Math.min(3600, leaseSeconds));
  }

  /** The ID a client names the lock by: Terraform's LockInfo.ID, or the lock service's id. */
  static String clientId(Lease lease) {
    return lease.holder() != null && lease.holder().startsWith(HOLDER_PREFIX)
        ? lease.holder().substring(HOLDER_PREFIX.length())
        : lease.lockId();
  }

  /** The holder's LockInfo (Terraform's JSON shape). */
  static ObjectNode lockInfo(Lease lease, String workspace) {
    if (lease.holder() != null
        && lease.holder().startsWith(HOLDER_PREFIX)
        && lease.info() != null) {
      try {
        JsonNode stored = JSON.readTree(lease.info());
        if (stored instanceof ObjectNode o) {
          return o;
        }
      } catch (IOException e) {
        // fall through to the synthesized form
      }
    }
    ObjectNode info = JSON.createObjectNode();
    info.put("ID", clientId(lease));
    info.put("Operation", "stagecraft-run");
    info.put("Info", lease.info() == null ? "" : lease.info());
    info.put("Who", lease.holder());
    info.put("Version", "stagecraft");
    info.put("Created", lease.acquiredAt() == null ? "" : lease.acquiredAt());
    info.put("Path", workspace);
    return info;
  }

  /** 423 with the holder's LockInfo (what Terraform prints as "Lock Info"). */
  static HttpResponse<String> locked(Lease held, int queueLength, String workspace) {
    ObjectNode info;
    if (held != null) {
      info = lockInfo(held, workspace);
    } else {
      info = JSON.createObjectNode();
      info.put("ID", "");
      info.put("Operation", "stagecraft-queue");
      info.put(
          "Info", queueLength + " Stagecraft run(s) wait for this workspace's lock; retry later");
      info.put("Who", "stagecraft");
      info.put("Version", "stagecraft");
      info.put("Created", "");
      info.put("Path", workspace);
    }
    return HttpResponse.<String>status(HttpStatus.LOCKED)
        .contentType("application/json")
        .body(info.toString());
  }

  /**
   * LOCK: takes the lock for the LockInfo in {@code body} ({@code ID} required), never queueing.
   *
   * @return 200 with the LockInfo, or 423 with the holder's
   */
  HttpResponse<String> lock(Principal principal, String workspace, String body) {
    ObjectNode info = parseLockInfo(body, true);
    String id = info.path("ID").asText();
    LockServiceClient.TryLock answer =
        locks.tryLock(
            principal.tenant(), workspace, HOLDER_PREFIX + id, leaseSeconds, info.toString());
    if (answer.granted() == null) {
      return locked(answer.held(), answer.queueLength(), workspace);
    }
    held.put(
        new HeldKey(principal.tenant(), workspace, id),
        new Held(answer.granted().lockId(), answer.granted().fencingToken()));
    return HttpResponse.<String>ok(info.toString()).contentType("application/json");
  }

  /** The LockInfo of a request body; generates an ID when {@code requireId} is false and none. */
  static ObjectNode parseLockInfo(String body, boolean requireId) {
    JsonNode json;
    try {
      json = body == null || body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw Problem.badRequest(
          "the body must be Terraform's LockInfo JSON ({\"ID\":…,\"Operation\":…,\"Who\":…}): "
              + e.getOriginalMessage());
    }
    if (!(json instanceof ObjectNode info)) {
      throw Problem.badRequest("the body must be a LockInfo JSON object");
    }
    if (!info.path("ID").isTextual() || info.path("ID").asText().isBlank()) {
      if (requireId) {
        throw Problem.badRequest(
            "LockInfo field 'ID' is required: the lock ID the client will send with ?ID= and"
                + " UNLOCK");
      }
      info.put("ID", UUID.randomUUID().toString());
    }
    return info;
  }

  /**
   * The fencing token a write under {@code id} may use, after renewing its lease: the lease's token
   * when {@code id} holds the lock; the newest token seen when nobody holds it and no ID was sent
   * (a write without locking, as Terraform's {@code -lock=false}).
   *
   * @throws Problem 423 when locked and no ID was sent, 409 when the ID does not hold the lock
   */
  long writeToken(Principal principal, String workspace, String id) throws SQLException {
    HeldKey key =
        id == null || id.isEmpty() ? null : new HeldKey(principal.tenant(), workspace, id);
    Held remembered = key == null ? null : held.get(key);
    if (remembered != null) {
      if (locks.heartbeat(principal.tenant(), workspace, remembered.lockId())) {
        return remembered.fencingToken();
      }
      held.remove(key); // released, forced open or expired: the checks below say which
    }
    Optional<Lease> lease = locks.current(principal.tenant(), workspace);
    if (lease.isEmpty()) {
      if (id != null && !id.isEmpty()) {
        throw Problem.conflict(
            "lock ID "
                + id
                + " does not hold workspace '"
                + workspace
                + "' (it was released, forced open, or its lease expired): lock it again, then"
                + " retry");
      }
      return states.newestFencingToken(principal.tenant(), workspace);
    }
    Lease current = lease.get();
    if (id == null || id.isEmpty()) {
      throw new Problem(
          423,
          "Locked",
          "workspace '"
              + workspace
              + "' is locked by "
              + current.holder()
              + " (lock ID "
              + clientId(current)
              + "): send ?ID=<lock id> as the holder, or wait until it is unlocked");
    }
    if (!id.equals(clientId(current))) {
      throw Problem.conflict(
          "lock ID "
              + id
              + " is not the holder's: workspace '"
              + workspace
              + "' is locked by "
              + current.holder()
              + " (lock ID "
              + clientId(current)
              + ")");
    }
    if (!locks.heartbeat(principal.tenant(), workspace, current.lockId())) {
      throw Problem.conflict(
          "the lease of lock " + id + " ran out just now: lock the workspace again, then retry");
    }
    held.put(key, new Held(current.lockId(), current.fencingToken()));
    return current.fencingToken();
  }

  /**
   * UNLOCK. With the holder's LockInfo in the body: a normal release. With an empty body (what
   * Terraform's {@code force-unlock} sends) or {@code force}: a force-unlock of the lock named by
   * {@code queryId}, or — for an admin when no ID is given — of whatever holds the lock now.
   */
  HttpResponse<String> unlock(
      Principal principal, String workspace, String body, String queryId, String reason)
      throws SQLException {
    boolean empty = body == null || body.isBlank();
    String id = empty ? queryId : parseLockInfo(body, true).path("ID").asText();
    Optional<Lease> lease = locks.current(principal.tenant(), workspace);
    if (lease.isEmpty()) {
      return HttpResponse.<String>ok("{}").contentType("application/json"); // already free
    }
    Lease held = lease.get();
    if (!empty) {
      if (!id.equals(clientId(held))) {
        throw Problem.conflict(
            "lock ID "
                + id
                + " is not the holder's; workspace '"
                + workspace
                + "' is locked by "
                + held.holder()
                + " (lock ID "
                + clientId(held)
                + "): nothing was unlocked");
      }
      locks.release(principal.tenant(), workspace, held.lockId());
      this.held.remove(new HeldKey(principal.tenant(), workspace, id));
      return HttpResponse.<String>ok("{}").contentType("application/json");
    }
    if (id == null || id.isEmpty()) {
      if (!"admin".equals(principal.role())) {
        throw Problem.conflict(
            "force-unlock over the HTTP backend needs the lock ID: Terraform does not send it, so"
                + " add it to the unlock address (TF_HTTP_UNLOCK_ADDRESS=…/lock?ID=<lock id>) or"
                + " run 'stagecraft force-unlock <lock id> -reason=…'; admins may force without it."
                + " Current lock ID: "
                + clientId(held));
      }
      id = clientId(held);
    }
    forceUnlock(
        principal,
        workspace,
        id,
        reason == null || reason.isBlank()
            ? "terraform force-unlock over the HTTP backend"
            : reason,
        "terraform-http-backend");
    return HttpResponse.<String>ok("{}").contentType("application/json");
  }

  /**
   * Force-unlock of the lock named {@code id}: released in the lock service (audited there; its
   * audit row is the outbox from which the lock service publishes {@code
   * dev.stagecraft.lock.force-unlocked} naming {@code id} and {@code via}, so a broker outage does
   * not lose the event), then recorded in the workspace history (who, why).
   *
   * @throws Problem 404 when nothing holds the lock, 409 when {@code id} is not the holder's
   */
  Lease forceUnlock(Principal principal, String workspace, String id, String reason, String via)
      throws SQLException {
    Authenticator.requireWriter(principal);
    if (reason == null || reason.isBlank()) {
      throw Problem.badRequest("a force-unlock needs a reason: say why the lock is forced open");
    }
    Lease held =
        locks
            .current(principal.tenant(), workspace)
            .orElseThrow(
                () ->
                    Problem.notFound(
                        "workspace '" + workspace + "' is not locked: nothing to force-unlock"));
    if (!id.equals(clientId(held))) {
      throw Problem.conflict(
          "lock ID "
              + id
              + " is not the holder's (current lock ID "
              + clientId(held)
              + ", held by "
              + held.holder()
              + "): nothing was unlocked");
    }
    Lease released =
        locks
            .forceRelease(
                principal.tenant(), workspace, held.lockId(), principal.actor(), reason, via, id)
            .orElseThrow(
                () ->
                    Problem.conflict(
                        "lock " + id + " was released or expired meanwhile: nothing to force"));
    this.held.remove(new HeldKey(principal.tenant(), workspace, id));
    history
        .changes()
        .recordForceUnlock(
            principal.tenant(),
            workspace,
            new StateEvent.LockForceUnlocked(
                id, released.holder(), released.fencingToken(), reason),
            principal.actor());
    return released;
  }
}
