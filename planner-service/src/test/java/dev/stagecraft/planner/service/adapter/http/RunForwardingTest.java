package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.InstanceStore;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunFixtures;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.db.Sql;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpRequest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Forwarding a run command to the planner instance that drives the run (docs/adr/0050), against a
 * real PostgreSQL for who drives what, and a real HTTP server standing in for the driving
 * instance's public API: what is forwarded (path, body, the caller's {@code Authorization}, who
 * forwarded it) and relayed, and what answers instead when the driver cannot be asked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunForwardingTest {
  static final Duration LEASE = Duration.ofSeconds(15);
  final Clock clock = Clock.fixed(Instant.parse("2026-11-28T10:00:00Z"), ZoneOffset.UTC);
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  PlannerTestDatabase database;
  HikariDataSource dataSource;
  InstanceStore instances;
  HttpServer driver;
  final List<Map<String, String>> received = new CopyOnWriteArrayList<>();
  RunForwarding fromB;

  @BeforeAll
  void start() throws Exception {
    database = PlannerTestDatabase.start("planner-forwarding-");
    dataSource = database.dataSource();
    instances = new InstanceStore(dataSource);
    driver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    driver.createContext(
        "/",
        exchange -> {
          Map<String, String> seen = new ConcurrentHashMap<>();
          seen.put("method", exchange.getRequestMethod());
          seen.put("path", exchange.getRequestURI().getRawPath());
          seen.put("body", new String(exchange.getRequestBody().readAllBytes(), UTF8));
          seen.put(
              "authorization",
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          seen.put(
              "forwardedBy",
              String.valueOf(exchange.getRequestHeaders().getFirst(RunForwarding.FORWARDED_BY)));
          seen.put(
              "signature",
              String.valueOf(
                  exchange.getRequestHeaders().getFirst(TriggerSignature.SIGNATURE_HEADER)));
          seen.put(
              "timestamp",
              String.valueOf(
                  exchange.getRequestHeaders().getFirst(TriggerSignature.TIMESTAMP_HEADER)));
          received.add(seen);
          if (exchange.getRequestURI().getRawPath().equals(ForwardedDecisions.WEBHOOK)) {
            // the driver's webhook decided: what a planner answers to a decision it made
            byte[] decided =
                "{\"run_id\":\"run-decide\",\"decision\":\"discard\",\"status\":\"discarded\"}"
                    .getBytes(UTF8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(202, decided.length);
            exchange.getResponseBody().write(decided);
            exchange.close();
            return;
          }
          byte[] answer = "{\"title\":\"Not awaiting approval\"}".getBytes(UTF8);
          exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
          // a run named "run-odd" gets a status no planner sends (something else at the address)
          exchange.sendResponseHeaders(
              exchange.getRequestURI().getRawPath().contains("run-odd") ? 599 : 409, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    driver.start();
    fromB = new RunForwarding(instances, "fwd-b");
    instances.register("fwd-b", "inc-1", LEASE, "http://127.0.0.1:1");
  }

  @AfterAll
  void stop() throws Exception {
    if (driver != null) {
      driver.stop(0);
    }
    if (database != null) {
      database.close();
    }
  }

  static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  @Test
  void aCommandForARunAnotherLiveInstanceDrivesIsSentThereWithTheCallersTokenAndItsAnswerRelayed()
      throws Exception {
    String url = "http://127.0.0.1:" + driver.getAddress().getPort() + "/";
    instances.register("fwd-a", "inc-1", LEASE, url.replaceAll("/$", ""));
    record("fwd-a", "run-one");
    received.clear();

    HttpResponse<?> answer =
        fromB
            .forward(
                caller("Bearer sc_token_1", null),
                "acme",
                "run-one",
                "planned",
                "approve",
                "{\"planDigest\":\"sha256:abc\"}")
            .orElseThrow();

    assertThat(answer.code()).isEqualTo(409);
    assertThat(answer.getHeaders().get(RunForwarding.ANSWERED_BY)).isEqualTo("fwd-a");
    assertThat(answer.getContentType().map(Object::toString)).contains("application/problem+json");
    assertThat(answer.body()).isEqualTo("{\"title\":\"Not awaiting approval\"}");
    assertThat(received).hasSize(1);
    assertThat(received.getFirst())
        .containsEntry("method", "POST")
        .containsEntry("path", "/api/v1/runs/run-one/approve")
        .containsEntry("body", "{\"planDigest\":\"sha256:abc\"}")
        .containsEntry("authorization", "Bearer sc_token_1")
        .containsEntry("forwardedBy", "fwd-b");
  }

  @Test
  void aChatOpsDecisionOnARunAnotherInstanceDrivesIsSentToItsWebhookAsSigned() throws Exception {
    instances.register(
        "dec-a", "inc-1", LEASE, "http://127.0.0.1:" + driver.getAddress().getPort());
    record("dec-a", "run-decide");
    received.clear();
    RunStore store = new RunStore(dataSource, clock, "fwd-b", keyring);
    ForwardedDecisions decisions = new ForwardedDecisions(store, fromB);
    byte[] body = "{\"type\":\"dev.stagecraft.run.decision-requested\"}".getBytes(UTF8);

    RunTrigger.Outcome outcome =
        decisions.elsewhere(
            new RunTrigger.Decision(
                "acme", "evt-9", "run-decide", "discard", body, "1795000000", "sha256=ab", null));

    assertThat(outcome)
        .isEqualTo(
            new RunTrigger.Decided("acme", "evt-9", "run-decide", "discard", "discarded", null));
    assertThat(received).hasSize(1);
    assertThat(received.getFirst())
        .containsEntry("path", ForwardedDecisions.WEBHOOK)
        .containsEntry("body", new String(body, UTF8))
        .containsEntry("timestamp", "1795000000")
        .containsEntry("signature", "sha256=ab")
        .containsEntry("forwardedBy", "fwd-b");

    // forwarded here already: not sent on again, refused as driven elsewhere
    received.clear();
    RunTrigger.Outcome again =
        decisions.elsewhere(
            new RunTrigger.Decision(
                "acme", "evt-9", "run-decide", "discard", body, "1795000000", "sha256=ab", "x"));
    assertThat(again).isInstanceOf(RunTrigger.Refused.class);
    assertThat(((RunTrigger.Refused) again).kind()).isEqualTo(RunTrigger.Refusal.CONFLICT);
    assertThat(received).isEmpty();

    // an ended run is not asked about; another tenant's is none
    new RunStore(dataSource, clock, "dec-a", keyring)
        .transitioned(
            RunFixtures.run("run-decide", request("run-decide"), clock.instant(), clock),
            3,
            RunStatus.DISCARDED,
            "discarded",
            clock.instant());
    RunTrigger.Outcome ended =
        decisions.elsewhere(
            new RunTrigger.Decision(
                "acme", "evt-9", "run-decide", "discard", body, "1795000000", "sha256=ab", null));
    assertThat(ended).isInstanceOf(RunTrigger.Refused.class);
    assertThat(((RunTrigger.Refused) ended).reason()).contains("is not waiting for approval");
    RunTrigger.Outcome foreign =
        decisions.elsewhere(
            new RunTrigger.Decision(
                "globex", "evt-9", "run-decide", "discard", body, "1", "sha256=ab", null));
    assertThat(((RunTrigger.Refused) foreign).kind()).isEqualTo(RunTrigger.Refusal.NOT_FOUND);
    assertThat(received).isEmpty();
  }

  @Test
  void aRequestForwardedOnceAlreadyIsNotForwardedAgain() throws Exception {
    instances.register(
        "loop-a", "inc-1", LEASE, "http://127.0.0.1:" + driver.getAddress().getPort());
    record("loop-a", "run-loop");
    received.clear();

    HttpResponse<?> answer =
        fromB
            .forward(caller("Bearer t", "fwd-c"), "acme", "run-loop", "applying", "cancel", "{}")
            .orElseThrow();

    assertThat(answer.code()).isEqualTo(409);
    assertThat(String.valueOf(answer.body()))
        .contains("driven by another planner instance")
        .contains("cannot cancel it");
    assertThat(received).isEmpty();
  }

  @Test
  void whatCannotBeForwardedSaysWhyAndWhetherToRetry() throws Exception {
    // the driver advertised no address: 409, naming the setting that would let B forward
    instances.register("quiet-a", "inc-1", LEASE);
    record("quiet-a", "run-quiet");
    HttpResponse<?> quiet = forward("run-quiet");
    assertThat(quiet.code()).isEqualTo(409);
    assertThat(String.valueOf(quiet.body()))
        .contains("STAGECRAFT_PLANNER_ADVERTISED_URL")
        .contains("quiet-a");

    // the driver's lease expired: 503, retry once another instance adopted the run
    instances.register("gone-a", "inc-1", LEASE, "http://127.0.0.1:1");
    record("gone-a", "run-gone");
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.instances SET renewed_at = now() - interval '1 hour'"
              + " WHERE instance_id = 'gone-a'");
    }
    HttpResponse<?> gone = forward("run-gone");
    assertThat(gone.code()).isEqualTo(503);
    assertThat(gone.getHeaders().get("Retry-After")).isNotNull();
    assertThat(String.valueOf(gone.body())).contains("gone-a").contains("lease has expired");

    // alive by its lease, but nothing answers at its address: 503
    int closed;
    try (ServerSocket probe = new ServerSocket(0)) {
      closed = probe.getLocalPort();
    }
    instances.register("mute-a", "inc-1", LEASE, "http://127.0.0.1:" + closed);
    record("mute-a", "run-mute");
    HttpResponse<?> mute = forward("run-mute");
    assertThat(mute.code()).isEqualTo(503);
    assertThat(mute.getHeaders().get("Retry-After")).isNotNull();
    assertThat(String.valueOf(mute.body()))
        .contains("mute-a")
        .contains("did not answer at http://127.0.0.1:" + closed);

    // something that is not a planner answers at the address: 502, saying what to check
    instances.register(
        "odd-a", "inc-1", LEASE, "http://127.0.0.1:" + driver.getAddress().getPort());
    record("odd-a", "run-odd");
    HttpResponse<?> odd = forward("run-odd");
    assertThat(odd.code()).isEqualTo(502);
    assertThat(String.valueOf(odd.body()))
        .contains("answered HTTP 599")
        .contains("STAGECRAFT_PLANNER_ADVERTISED_URL");

    // recorded as B's own, not resumed yet after a restart: 503, retry in a moment
    record("fwd-b", "run-mine");
    HttpResponse<?> mine = forward("run-mine");
    assertThat(mine.code()).isEqualTo(503);
    assertThat(String.valueOf(mine.body())).contains("still resuming it");

    // no such run (or another tenant's): nothing to answer but 404, which the caller gives
    assertThat(
            fromB.forward(
                caller("Bearer t", null), "other", "run-quiet", "planned", "cancel", "{}"))
        .isEmpty();
  }

  private HttpResponse<?> forward(String runId) throws Exception {
    return fromB
        .forward(caller("Bearer t", null), "acme", runId, "planned", "discard", "{}")
        .orElseThrow();
  }

  private static MutableHttpRequest<?> caller(String authorization, String forwardedBy) {
    MutableHttpRequest<String> request =
        io.micronaut.http.HttpRequest.POST("/api/v1/runs/x/cancel", "{}")
            .header("Authorization", authorization);
    return forwardedBy == null ? request : request.header(RunForwarding.FORWARDED_BY, forwardedBy);
  }

  /** A run of tenant acme recorded by {@code instanceId}, planned. */
  private void record(String instanceId, String runId) throws Exception {
    RunStore store = new RunStore(dataSource, clock, instanceId, keyring);
    RunRequest request = request(runId);
    Run run = RunFixtures.run(runId, request, clock.instant(), clock);
    store.transitioned(run, 1, RunStatus.PENDING, null, clock.instant());
    store.transitioned(run, 2, RunStatus.PLANNED, null, clock.instant());
  }

  private static RunRequest request(String runId) {
    return new RunRequest(
        "acme",
        "ws-" + runId,
        Map.of("main.tf", "# empty\n"),
        Map.of(),
        Map.of(),
        false,
        List.of(),
        null,
        null,
        "deployer@acme",
        1,
        null);
  }
}
