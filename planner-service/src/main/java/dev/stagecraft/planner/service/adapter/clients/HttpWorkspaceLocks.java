package dev.stagecraft.planner.service.adapter.clients;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.servicekit.http.InternalHttp;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link WorkspaceLocks} over lock-service's internal HTTP API (docs/internal-api.md).
 *
 * <p>An acquire that may wait ({@code waitSeconds > 0}) is one long poll: lock-service answers when
 * the lock is granted or the wait is over (queued, with the position). A {@code 503} (lock-service
 * cannot reach its database: it is restarting) is repeated, with the same holder — acquire is
 * idempotent by holder, so it keeps its queue place — after a pause that doubles up to 2 s, for at
 * most {@link #UNAVAILABLE_BUDGET}, and so is a lock-service that cannot be reached at all (it
 * restarts): an acquire or a release rides out a restart of lock-service or of its database instead
 * of failing the run. A heartbeat is not repeated (the next one comes a third of a lease later).
 */
public final class HttpWorkspaceLocks implements WorkspaceLocks {
  /** How long an acquire or release repeats a 503 before it fails. */
  public static final Duration UNAVAILABLE_BUDGET = RideOut.BUDGET;

  private final InternalHttp http;
  private final RideOut rideOut;
  private volatile Function<String, SpanContext> runTraces = id -> SpanContext.getInvalid();

  public HttpWorkspaceLocks(InternalHttp http) {
    this(http, UNAVAILABLE_BUDGET, Duration.ofMillis(250));
  }

  /**
   * @param unavailableBudget how long a 503 is repeated (zero: not at all)
   * @param firstPause the pause before the first repetition (doubled each time, up to 2 s)
   */
  public HttpWorkspaceLocks(InternalHttp http, Duration unavailableBudget, Duration firstPause) {
    this.http = http;
    this.rideOut = new RideOut(unavailableBudget, firstPause);
  }

  /**
   * Makes each acquire a span {@code lock acquire} in the trace of the run that holds the lock
   * ({@code runTraces}: a run id's root span, docs/adr/0083): the run asks from a thread of its
   * own, which has no trace context. Call once, before runs start.
   */
  public HttpWorkspaceLocks withRunTraces(Function<String, SpanContext> runTraces) {
    this.runTraces = runTraces;
    return this;
  }

  private InternalHttp.Response repeatWhileUnavailable(Supplier<InternalHttp.Response> request) {
    return rideOut.repeat(request);
  }

  @Override
  public Acquisition acquire(
      String tenant,
      String workspace,
      String holder,
      int leaseSeconds,
      int waitSeconds,
      String info) {
    return acquire(tenant, workspace, holder, leaseSeconds, waitSeconds, info, null);
  }

  /**
   * Asks lock-service for the lock, which waits up to {@code waitSeconds} server-side while the
   * holder is queued. With a coalescing key a 409 of type {@code …/superseded} (the request was
   * replaced by a newer one with the same key) is {@link Superseded}.
   */
  @Override
  public Acquisition acquire(
      String tenant,
      String workspace,
      String holder,
      int leaseSeconds,
      int waitSeconds,
      String info,
      String coalescingKey) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("holder", holder);
    body.put("leaseSeconds", leaseSeconds);
    body.put("waitSeconds", waitSeconds);
    body.put("info", info);
    if (coalescingKey != null) {
      body.put("coalescingKey", coalescingKey);
    }
    InternalHttp.Response r;
    Span span = Span.getInvalid();
    if (Tracing.enabled()) {
      span =
          Tracing.tracer()
              .spanBuilder("lock acquire")
              .setParent(Context.current().with(Span.wrap(runTraces.apply(holder))))
              .setAttribute(Tracing.TENANT, tenant)
              .setAttribute(Tracing.WORKSPACE, workspace)
              .setAttribute(Tracing.RUN, holder)
              .startSpan();
    }
    try (Scope ignored = span.makeCurrent()) {
      r =
          repeatWhileUnavailable(
              () ->
                  http.post(path(tenant, workspace), body, Duration.ofSeconds(waitSeconds + 10L)));
    } finally {
      span.end();
    }
    JsonNode json = r.json();
    if (r.status() == 200) {
      return new Granted(json.get("lockId").asText(), json.get("fencingToken").asLong());
    }
    if (r.status() == 202) {
      return new Queued(json.path("position").asInt(0));
    }
    if (r.status() == 409 && json.path("type").asText("").endsWith("/superseded")) {
      return new Superseded(supersedingHolder(json.path("detail").asText("")));
    }
    throw new IllegalStateException("lock-service answered " + r.status() + ": " + r.body());
  }

  @Override
  public boolean heartbeat(String tenant, String workspace, String lockId) {
    String path = path(tenant, workspace) + "/" + enc(lockId) + "/heartbeat";
    InternalHttp.Response r = http.post(path, Map.of(), Duration.ofSeconds(10));
    if (r.status() == 200) {
      return true;
    }
    if (r.status() == 410 || r.status() == 404) {
      return false;
    }
    throw new IllegalStateException("lock-service answered " + r.status() + ": " + r.body());
  }

  @Override
  public void release(String tenant, String workspace, String lockId) {
    String path = path(tenant, workspace) + "/" + enc(lockId);
    InternalHttp.Response r =
        repeatWhileUnavailable(() -> http.delete(path, Duration.ofSeconds(10)));
    if (r.status() >= 300 && r.status() != 404) {
      throw new IllegalStateException("lock-service answered " + r.status() + ": " + r.body());
    }
  }

  /**
   * The newer holder named in lock-service's superseded detail ("… by a newer request from 'X' …"),
   * or "a newer request" when the detail does not name one.
   */
  public static String supersedingHolder(String detail) {
    Matcher m = Pattern.compile("newer request from '([^']*)'").matcher(detail);
    return m.find() ? m.group(1) : "a newer request";
  }

  private static String path(String tenant, String workspace) {
    return "/internal/v1/tenants/" + enc(tenant) + "/workspaces/" + enc(workspace) + "/lock";
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
