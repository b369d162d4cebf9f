package dev.stagecraft.state.adapter.lock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.servicekit.http.InternalHttp;
import dev.stagecraft.servicekit.http.Problem;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The lock-service's internal API ({@code /internal/v1/tenants/{t}/workspaces/{ws}/lock}), as the
 * state service uses it for the Terraform HTTP backend and the public lock endpoints: the very lock
 * the planner's runs take, so a Terraform client and a Stagecraft run never both write.
 *
 * <p>One request per command; none of them waits server-side ({@code waitSeconds} 0).
 *
 * <p>Thread-safe (kept-alive connections, {@link InternalHttp}). A lock-service that cannot be
 * reached is a 503 for the caller: nothing is written without knowing who holds the lock.
 */
@Singleton
public final class LockServiceClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A granted lease as the lock service shows it. */
  public record Lease(
      String holder,
      String lockId,
      long fencingToken,
      String acquiredAt,
      String leaseExpiresAt,
      String info) {}

  /** The answer to a try-lock: granted, or refused with the current lease (null: others queue). */
  public record TryLock(Lease granted, Lease held, int queueLength) {}

  /** How long a command may take before the lock service counts as unreachable. */
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** One try per request: a lock service that cannot be reached is the caller's 503 at once. */
  private final InternalHttp http;

  /**
   * @param credentials the state service's tokens: it presents its own ({@code
   *     STAGECRAFT_SERVICE_TOKEN_STATE})
   */
  @Inject
  public LockServiceClient(
      @Value("${stagecraft.lock-url}") String baseUrl, ServiceCredentials credentials) {
    this(baseUrl, credentials.ownToken());
  }

  /** A client presenting {@code token} (the state role's). */
  public LockServiceClient(String baseUrl, String token) {
    this.http = new InternalHttp(baseUrl, token, 1);
  }

  /** The current lease of the workspace's lock, or empty when it is free. */
  public Optional<Lease> current(String tenant, String workspace) {
    JsonNode body = call("GET", url(tenant, workspace, ""), null, 200).body();
    return body.path("lockId").isTextual() ? Optional.of(lease(body)) : Optional.empty();
  }

  /** Takes the lock now or answers who holds it; never joins the queue. */
  public TryLock tryLock(
      String tenant, String workspace, String holder, long leaseSeconds, String info) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("holder", holder);
    request.put("leaseSeconds", leaseSeconds);
    request.put("waitSeconds", 0);
    request.put("info", info);
    request.put("queue", false);
    Reply reply = call("POST", url(tenant, workspace, ""), request, 200, 423);
    if (reply.status() == 200) {
      // the grant carries no holder/info: they are ours
      JsonNode b = reply.body();
      return new TryLock(
          new Lease(
              holder,
              b.path("lockId").asText(),
              b.path("fencingToken").asLong(),
              null,
              b.path("leaseExpiresAt").asText(),
              info),
          null,
          0);
    }
    JsonNode b = reply.body();
    return new TryLock(
        null, b.path("lockId").isTextual() ? lease(b) : null, b.path("queueLength").asInt());
  }

  /** Renews the lease; false when it is lost. */
  public boolean heartbeat(String tenant, String workspace, String lockId) {
    return call("POST", url(tenant, workspace, "/" + enc(lockId) + "/heartbeat"), null, 200, 410)
            .status()
        == 200;
  }

  /** Releases the lock held as {@code lockId} (idempotent). */
  public void release(String tenant, String workspace, String lockId) {
    call("DELETE", url(tenant, workspace, "/" + enc(lockId)), null, 200);
  }

  /**
   * Force-unlock with audit; empty when {@code lockId} does not hold the lock. The lock service
   * publishes {@code dev.stagecraft.lock.force-unlocked} from its audit trail (an outbox), naming
   * the lock {@code clientLockId} and the path {@code via} ({@code rest} or {@code
   * terraform-http-backend}).
   */
  public Optional<Lease> forceRelease(
      String tenant,
      String workspace,
      String lockId,
      String actor,
      String reason,
      String via,
      String clientLockId) {
    Reply reply =
        call(
            "POST",
            url(tenant, workspace, "/" + enc(lockId) + "/force-release"),
            Map.of("actor", actor, "reason", reason, "via", via, "clientLockId", clientLockId),
            200,
            409);
    return reply.status() == 200 ? Optional.of(lease(reply.body())) : Optional.empty();
  }

  private static Lease lease(JsonNode b) {
    return new Lease(
        b.path("holder").asText(null),
        b.path("lockId").asText(null),
        b.path("fencingToken").asLong(),
        b.path("acquiredAt").asText(null),
        b.path("leaseExpiresAt").asText(null),
        b.path("info").isNull() ? null : b.path("info").asText(null));
  }

  private record Reply(int status, JsonNode body) {}

  /** Sends the command; an answer other than {@code expected} is a 503 for the caller. */
  private Reply call(String method, String path, Object body, int... expected) {
    Reply reply = send(method, path, body);
    for (int status : expected) {
      if (reply.status() == status) {
        return reply;
      }
    }
    throw unavailable("the lock service answered " + reply.status() + " to " + method + " " + path);
  }

  /**
   * One request over a kept-alive connection on the calling thread ({@link InternalHttp}: the JDK's
   * {@code java.net.http} client cost 1.4-2 ms more per exchange, docs/benchmarks.md): its status
   * and body (parsed when JSON, else an empty object).
   */
  private Reply send(String method, String path, Object body) {
    InternalHttp.Response response;
    try {
      response = http.send(method, path, body, TIMEOUT);
    } catch (IllegalStateException e) {
      throw unavailable("the lock service cannot be reached (" + e.getMessage() + ")");
    }
    JsonNode json;
    try {
      json = response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
    } catch (IOException notJson) {
      json = JSON.createObjectNode();
    }
    return new Reply(response.status(), json);
  }

  private static Problem unavailable(String detail) {
    return new Problem(503, "Service Unavailable", detail + "; nothing was changed, retry later");
  }

  private static String url(String tenant, String workspace, String suffix) {
    return "/internal/v1/tenants/"
        + enc(tenant)
        + "/workspaces/"
        + enc(workspace)
        + "/lock"
        + suffix;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
