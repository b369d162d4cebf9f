package dev.stagecraft.planner.service.console;

import dev.stagecraft.planner.service.adapter.clients.InternalApis;
import dev.stagecraft.servicekit.http.InternalHttp;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the workspace page needs that the planner's API has no controller for, asked of the service
 * that owns it over its HTTP API (never its database): the lock and its queue from the lock
 * service's {@code GET …/lock} (the planner's service token, for a workspace the caller's tenant
 * was just shown to have by the API), and the state service's public diff and force-unlock with the
 * caller's own token, so the state service applies its own tenant and role checks; the same for the
 * current state (its resources) and a rollback, which the state service accepts only under the
 * workspace lock, so it is taken (never waited for) and released around it, as {@code stagecraft
 * state rollback} does. Stateless; thread-safe.
 */
@Singleton
public final class WorkspaceServices {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final InternalApis apis;

  public WorkspaceServices(InternalApis apis) {
    this.apis = apis;
  }

  /** The lock of {@code tenant}'s workspace {@code ws}: its lease (or nulls) and queue. */
  public InternalHttp.Response lock(String tenant, String ws) {
    return apis.lock()
        .get(
            "/internal/v1/tenants/"
                + ConsoleRunsController.encoded(tenant)
                + "/workspaces/"
                + ConsoleRunsController.encoded(ws)
                + "/lock",
            TIMEOUT);
  }

  /** The state service's diff of versions {@code from} and {@code to}, as {@code token}. */
  public InternalHttp.Response diff(String token, String ws, long from, long to) {
    return apis.state()
        .getAs(
            token,
            "/api/v1/workspaces/"
                + ConsoleRunsController.encoded(ws)
                + "/state/diff?from="
                + from
                + "&to="
                + to,
            TIMEOUT);
  }

  /** Force-unlocks lock {@code lockId} of {@code ws} with {@code reason}, as {@code token}. */
  public InternalHttp.Response forceUnlock(String token, String ws, String lockId, String reason) {
    return apis.state()
        .postAs(
            token,
            "/api/v1/workspaces/"
                + ConsoleRunsController.encoded(ws)
                + "/lock/"
                + ConsoleRunsController.encoded(lockId)
                + "/force-unlock",
            Map.of("reason", reason),
            TIMEOUT);
  }

  /** The current state (Terraform v4 JSON; 204 when there is none), as {@code token}. */
  public InternalHttp.Response state(String token, String ws) {
    return apis.state().getAs(token, base(ws) + "/state", TIMEOUT);
  }

  /**
   * Rolls {@code ws} back to version {@code serial} as {@code token}: takes the workspace lock over
   * the state service's lock API (a held lock is its 423, with the holder), asks for the rollback
   * under it and releases it whatever happened.
   */
  public InternalHttp.Response rollback(String token, String ws, long serial) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("Operation", "stagecraft-rollback");
    info.put("Info", "stagecraft console");
    info.put("Version", "stagecraft");
    InternalHttp.Response lock = apis.state().postAs(token, base(ws) + "/lock", info, TIMEOUT);
    if (lock.status() != 200 || lock.json() == null) {
      return lock;
    }
    String lockId = lock.json().path("ID").asText();
    try {
      return apis.state()
          .postAs(
              token,
              base(ws) + "/state/rollback",
              Map.of("serial", serial, "lockId", lockId),
              TIMEOUT);
    } finally {
      apis.state()
          .deleteAs(token, base(ws) + "/lock/" + ConsoleRunsController.encoded(lockId), TIMEOUT);
    }
  }

  private static String base(String ws) {
    return "/api/v1/workspaces/" + ConsoleRunsController.encoded(ws);
  }
}
