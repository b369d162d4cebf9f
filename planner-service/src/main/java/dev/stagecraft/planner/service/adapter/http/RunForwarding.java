package dev.stagecraft.planner.service.adapter.http;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.PlannerSettings;
import dev.stagecraft.planner.service.adapter.db.InstanceStore;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards a cancel, approve or discard of a live run to the planner instance that drives it
 * (docs/adr/0050): only that instance holds the run's thread, lock and pending approval. The
 * request goes to the address the driver advertised at registration ({@code
 * STAGECRAFT_PLANNER_ADVERTISED_URL}), with the caller's own {@code Authorization} (the driver
 * checks it again: no trust between instances is needed) and {@link #FORWARDED_BY}, which a
 * forwarded request is never forwarded again for (no loops, at most one extra hop); the driver's
 * answer is relayed as it is. What cannot be forwarded answers a problem that says why and what to
 * do: 503 with {@code Retry-After} while the driver is gone (until an instance adopts its runs) or
 * does not answer, or while this instance is still resuming the run itself; 409 when the driver
 * advertised no address.
 */
@Singleton
public final class RunForwarding {
  private static final Logger LOG = LoggerFactory.getLogger(RunForwarding.class);

  /** The header naming the instance that forwarded a request. */
  public static final String FORWARDED_BY = "Stagecraft-Forwarded-By";

  /** The header of a relayed answer naming the instance that gave it. */
  public static final String ANSWERED_BY = "Stagecraft-Answered-By";

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** The {@code Retry-After} of a 503 that passes by itself (seconds). */
  static final String RETRY_AFTER = "2";

  /**
   * Longer than the driver's own wait for a run's records ({@link RunsController#RECORDS_WAIT}).
   */
  static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);

  private final InstanceStore instances;
  private final String self;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(CONNECT_TIMEOUT)
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  @Inject
  RunForwarding(HikariDataSource dataSource, PlannerSettings settings) {
    this(new InstanceStore(dataSource), settings.getInstanceId());
  }

  RunForwarding(InstanceStore instances, String self) {
    this.instances = instances;
    this.self = self;
  }

  /** What became of a request for the driver of a run. */
  sealed interface Sent {}

  /** The driver's answer, as it gave it. */
  record Relayed(int status, String contentType, String body, String retryAfter, String answeredBy)
      implements Sent {}

  /**
   * Not sent: {@code status} 503 (a condition that passes by itself: retry) or 409 (the driver
   * cannot be asked from here), with a problem's {@code title} and {@code detail}.
   */
  record NotSent(int status, String title, String detail) implements Sent {}

  /**
   * {@code verb} ({@code cancel}, {@code approve}, {@code discard}) of live run {@code runId} of
   * {@code tenant}, which this instance does not hold, with {@code jsonBody}: the driver's answer,
   * or a problem saying why it could not be asked. Empty when the run is not recorded (the caller
   * answers 404).
   *
   * @param request the caller's request (its {@code Authorization} and {@link #FORWARDED_BY})
   * @param status the run's recorded status, for the messages
   */
  Optional<HttpResponse<?>> forward(
      io.micronaut.http.HttpRequest<?> request,
      String tenant,
      String runId,
      String status,
      String verb,
      String jsonBody)
      throws SQLException {
    String authorization = request.getHeaders().get("Authorization");
    return send(
            tenant,
            runId,
            status,
            verb,
            "/api/v1/runs/" + encoded(runId) + "/" + verb,
            authorization == null ? Map.of() : Map.of("Authorization", authorization),
            jsonBody,
            request.getHeaders().get(FORWARDED_BY))
        .map(RunForwarding::response);
  }

  /**
   * Sends {@code jsonBody} with {@code headers} to {@code path} of the planner instance driving
   * live run {@code runId} of {@code tenant} (this instance does not hold it): its answer, or why
   * it could not be asked. Empty when the run is not recorded.
   *
   * @param verb what is asked, for the messages
   * @param forwardedBy the {@link #FORWARDED_BY} of the request being forwarded (null: none): a
   *     forwarded request is never forwarded again
   */
  Optional<Sent> send(
      String tenant,
      String runId,
      String status,
      String verb,
      String path,
      Map<String, String> headers,
      String jsonBody,
      String forwardedBy)
      throws SQLException {
    Optional<InstanceStore.Driver> found = instances.driverOf(tenant, runId);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    InstanceStore.Driver driver = found.get();
    Sent refused = notForwardable(driver, runId, status, verb, forwardedBy);
    if (refused != null) {
      return Optional.of(refused);
    }
    return Optional.of(post(driver, runId, verb, path, headers, jsonBody));
  }

  /**
   * Why a request cannot be forwarded to {@code driver}, or null when it can: this instance is
   * still resuming the run, the request was forwarded once already, the driver is gone, or it
   * advertises no URL.
   */
  private Sent notForwardable(
      InstanceStore.Driver driver, String runId, String status, String verb, String forwardedBy) {
    if (driver.instanceId().equals(self)) {
      // recorded as this instance's but not (yet) held: resumed after a restart shortly
      return unavailable(
          "Run being resumed",
          "Run "
              + runId
              + " is "
              + status
              + " and this planner instance is still resuming it after a restart; retry the"
              + " request in a moment.");
    }
    if (forwardedBy != null) {
      // forwarded once already: the records and the forwarder disagree on who drives the run
      return drivenElsewhere(runId, status, verb, "");
    }
    if (!driver.alive()) {
      return unavailable(
          "Run's planner instance gone",
          "Run "
              + runId
              + " is "
              + status
              + " and driven by planner instance "
              + driver.instanceId()
              + ", whose lease has expired; another instance adopts its runs within a"
              + " heartbeat or two. Retry the request then.");
    }
    if (driver.advertisedUrl() == null) {
      return drivenElsewhere(
          runId,
          status,
          verb,
          " Planner instances forward such requests to each other when each is started with"
              + " STAGECRAFT_PLANNER_ADVERTISED_URL (instance "
              + driver.instanceId()
              + " was not).");
    }
    return null;
  }

  /** Posts the request to the instance driving the run: its answer, or why it gave none. */
  private Sent post(
      InstanceStore.Driver driver,
      String runId,
      String verb,
      String path,
      Map<String, String> headers,
      String jsonBody) {
    URI target = URI.create(driver.advertisedUrl() + path);
    HttpRequest.Builder forwarded =
        HttpRequest.newBuilder(target)
            .timeout(ANSWER_TIMEOUT)
            .header("Content-Type", MediaType.APPLICATION_JSON)
            .header(FORWARDED_BY, self)
            .POST(HttpRequest.BodyPublishers.ofString(jsonBody));
    headers.forEach(forwarded::header);
    java.net.http.HttpResponse<String> answer;
    try {
      answer = http.send(forwarded.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      LOG.warn(
          "could not forward {} of run {} to planner instance {} at {}: {}",
          verb,
          runId,
          driver.instanceId(),
          driver.advertisedUrl(),
          e.toString());
      return unavailable(
          "Run's planner instance not answering",
          "Run "
              + runId
              + " is driven by planner instance "
              + driver.instanceId()
              + ", which did not answer at "
              + driver.advertisedUrl()
              + (e instanceof HttpTimeoutException ? " in time" : "")
              + ". Retry the request; if that instance is gone, another adopts its runs once"
              + " its lease expires.");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unavailable("Interrupted", "The request was interrupted while forwarded; retry it.");
    }
    return new Relayed(
        answer.statusCode(),
        answer.headers().firstValue("Content-Type").orElse(MediaType.APPLICATION_JSON),
        answer.body(),
        answer.headers().firstValue("Retry-After").orElse(null),
        driver.instanceId());
  }

  /** The answer to relay to the caller. */
  private static HttpResponse<?> response(Sent sent) {
    return switch (sent) {
      case NotSent n ->
          n.status() == 503
              ? ApiProblems.problem(HttpStatus.SERVICE_UNAVAILABLE, n.title(), n.detail())
                  .header("Retry-After", RETRY_AFTER)
              : ApiProblems.problem(HttpStatus.valueOf(n.status()), n.title(), n.detail());
      case Relayed r -> relayed(r);
    };
  }

  private static HttpResponse<?> relayed(Relayed r) {
    HttpStatus code;
    try {
      code = HttpStatus.valueOf(r.status());
    } catch (IllegalArgumentException e) {
      // not Stagecraft's answer (something between the instances): say so rather than relay it
      return ApiProblems.problem(
          HttpStatus.BAD_GATEWAY,
          "Unexpected answer from the run's planner instance",
          "Planner instance "
              + r.answeredBy()
              + " answered HTTP "
              + r.status()
              + ". Check that STAGECRAFT_PLANNER_ADVERTISED_URL points at the planner itself.");
    }
    var relayed =
        HttpResponse.status(code).header(ANSWERED_BY, r.answeredBy()).contentType(r.contentType());
    if (r.retryAfter() != null) {
      relayed.header("Retry-After", r.retryAfter());
    }
    return relayed.body(r.body());
  }

  private static String encoded(String runId) {
    return URLEncoder.encode(runId, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** 503 with {@code Retry-After}: a condition that passes by itself. */
  private static NotSent unavailable(String title, String detail) {
    return new NotSent(503, title, detail);
  }

  /** 409: only the driver can {@code verb} the run, and it cannot be asked from here. */
  static NotSent drivenElsewhere(String runId, String status, String verb, String how) {
    return new NotSent(
        409,
        "Run driven by another instance",
        "Run "
            + runId
            + " is "
            + status
            + " and driven by another planner instance; this instance cannot "
            + verb
            + " it. Send the request to that instance (once it is gone, to the instance that"
            + " adopted the run)."
            + how);
  }
}
