package dev.stagecraft.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.lock.adapter.db.LockStore;
import dev.stagecraft.schemas.EventCodec;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The quick route ({@code /internal/v1/quick/...}, commands on the event loop over the service's
 * own bounded connections, ADR 0030) against a real PostgreSQL: it answers while waiting acquires
 * are parked on the waiting route, hands queued holders over to the waiting route with their place
 * kept, and answers 503 instead of hanging when the database stops answering — and works again once
 * it answers, without a restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuickRouteIntegrationTest {
  private static final String SERVICE_TOKEN = TestTokens.PLANNER;
  private static final String INSTANCE = "lock-quick-it";
  private static final int QUICK_CONNECTIONS = 2;

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedServer service;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("lock-quick-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    service =
        ApplicationContext.run(
            EmbeddedServer.class,
            Map.ofEntries(
                Map.entry("micronaut.server.port", -1),
                Map.entry("stagecraft.db.url", postgres.jdbcUrl()),
                Map.entry("stagecraft.db.user", postgres.user()),
                Map.entry("stagecraft.db.password", postgres.password()),
                Map.entry("stagecraft.service-tokens.planner", TestTokens.PLANNER),
                Map.entry("stagecraft.service-tokens.state", TestTokens.STATE),
                Map.entry("stagecraft.instance-id", INSTANCE),
                Map.entry("stagecraft.lock.quick.connections", QUICK_CONNECTIONS),
                Map.entry("stagecraft.lock.quick.statement-timeout", "500ms"),
                Map.entry("stagecraft.lock.quick.socket-timeout", "1s")));
  }

  @AfterAll
  void stop() throws Exception {
    if (service != null) {
      service.getApplicationContext().close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void aQuickCommandIsAnsweredWhileAWaitingAcquireIsParked() throws Exception {
    JsonNode a = json(quickAcquire("ws-parked", "run-a"));
    CompletableFuture<HttpResponse<String>> waiting = waitingAcquire("ws-parked", "run-b", 30);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(json(quickShow("ws-parked")).get("queue").toString())
                    .isEqualTo("[\"run-b\"]"));

    HttpResponse<String> other = quickAcquire("ws-other", "run-c");
    assertThat(other.statusCode()).isEqualTo(200);
    assertThat(quickRelease("ws-other", json(other).get("lockId").asText()).statusCode())
        .isEqualTo(200);
    assertThat(waiting).as("the waiting acquire is still parked").isNotDone();

    assertThat(quickRelease("ws-parked", a.get("lockId").asText()).statusCode()).isEqualTo(200);
    HttpResponse<String> granted = waiting.get(10, TimeUnit.SECONDS);
    assertThat(granted.statusCode()).isEqualTo(200);
    assertThat(json(granted).get("fencingToken").asLong())
        .isGreaterThan(a.get("fencingToken").asLong());
  }

  @Test
  void aWaitingAcquireIsRefusedOnTheQuickRoute() throws Exception {
    HttpResponse<String> r =
        send(
            "POST",
            "/internal/v1/quick/tenants/acme/workspaces/ws-nowait/lock",
            "{\"holder\":\"run-a\",\"waitSeconds\":5}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("detail").asText())
        .contains("waitSeconds")
        .contains("/internal/v1/tenants/acme/workspaces/ws-nowait/lock");
    assertThat(json(quickShow("ws-nowait")).get("queue")).isEmpty();
  }

  @Test
  void aHolderQueuedOnTheQuickRouteKeepsItsPlaceOnTheWaitingRoute() throws Exception {
    JsonNode a = json(quickAcquire("ws-queue", "run-a"));
    HttpResponse<String> b = quickAcquire("ws-queue", "run-b");
    HttpResponse<String> c = quickAcquire("ws-queue", "run-c");
    assertThat(b.statusCode()).isEqualTo(202);
    assertThat(json(b).get("position").asInt()).isEqualTo(1);
    assertThat(json(c).get("position").asInt()).isEqualTo(2);

    HttpResponse<String> again = waitingAcquire("ws-queue", "run-b", 0).get(10, TimeUnit.SECONDS);
    assertThat(again.statusCode()).isEqualTo(202);
    assertThat(json(again).get("position").asInt()).isEqualTo(1);

    CompletableFuture<HttpResponse<String>> poll = waitingAcquire("ws-queue", "run-b", 30);
    assertThat(quickHeartbeat("ws-queue", a.get("lockId").asText()).statusCode()).isEqualTo(200);
    assertThat(quickRelease("ws-queue", a.get("lockId").asText()).statusCode()).isEqualTo(200);
    HttpResponse<String> granted = poll.get(10, TimeUnit.SECONDS);
    assertThat(granted.statusCode()).isEqualTo(200);
    JsonNode view = json(quickShow("ws-queue"));
    assertThat(view.get("holder").asText()).isEqualTo("run-b");
    assertThat(view.get("queue").toString()).isEqualTo("[\"run-c\"]");

    HttpResponse<String> forced =
        send(
            "POST",
            "/internal/v1/quick/tenants/acme/workspaces/ws-queue/lock/"
                + json(granted).get("lockId").asText()
                + "/force-release",
            "{\"actor\":\"ops\",\"reason\":\"test\"}");
    assertThat(forced.statusCode()).isEqualTo(200);
    assertThat(json(forced).get("holder").asText()).isEqualTo("run-b");
    assertThat(quickHeartbeat("ws-queue", json(granted).get("lockId").asText()).statusCode())
        .isEqualTo(410);
  }

  /**
   * ADR 0038: after a workspace's first command, each quick acquire and release is committed by the
   * one-round-trip path (the store's optimistic saves count them); a force-release through the
   * waiting route between two quick commands is seen by the next ones (the heartbeat is lost, the
   * next acquire gets the next token).
   */
  @Test
  void quickCommandsAreOneRoundTripEachAndSeeAForceReleaseOnTheWaitingRoute() throws Exception {
    LockStore store = service.getApplicationContext().getBean(LockStore.class);
    JsonNode first = json(quickAcquire("ws-one-trip", "run-a"));
    assertThat(quickRelease("ws-one-trip", first.get("lockId").asText()).statusCode())
        .isEqualTo(200);
    LockStore.Stats before = store.stats();
    long token = first.get("fencingToken").asLong();
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> granted = quickAcquire("ws-one-trip", "run-" + i);
      assertThat(granted.statusCode()).isEqualTo(200);
      assertThat(json(granted).get("fencingToken").asLong()).isEqualTo(++token);
      assertThat(quickRelease("ws-one-trip", json(granted).get("lockId").asText()).statusCode())
          .isEqualTo(200);
    }
    LockStore.Stats after = store.stats();
    assertThat(after.optimisticSaves() - before.optimisticSaves()).isEqualTo(10);
    assertThat(after.staleSnapshots() - before.staleSnapshots()).isZero();

    JsonNode held = json(quickAcquire("ws-one-trip", "run-held"));
    String lockId = held.get("lockId").asText();
    HttpResponse<String> forced =
        send(
            "POST",
            "/internal/v1/tenants/acme/workspaces/ws-one-trip/lock/" + lockId + "/force-release",
            "{\"actor\":\"ops\",\"reason\":\"test\"}");
    assertThat(forced.statusCode()).isEqualTo(200);
    assertThat(quickHeartbeat("ws-one-trip", lockId).statusCode()).isEqualTo(410);
    HttpResponse<String> next = quickAcquire("ws-one-trip", "run-next");
    assertThat(next.statusCode()).isEqualTo(200);
    assertThat(json(next).get("fencingToken").asLong())
        .isEqualTo(held.get("fencingToken").asLong() + 1);
    assertThat(json(quickShow("ws-one-trip")).get("holder").asText()).isEqualTo("run-next");
  }

  /**
   * A row lock held by another session: the quick command's statement is cut off by its timeout and
   * answered 503 (the loop is not held); other workspaces' quick commands still work, and the
   * workspace works again once the row is free.
   */
  @Test
  void aQuickCommandBlockedInTheDatabaseAnswers503AndTheWorkspaceRecovers() throws Exception {
    JsonNode first = json(quickAcquire("ws-blocked", "run-a"));
    assertThat(quickRelease("ws-blocked", first.get("lockId").asText()).statusCode())
        .isEqualTo(200);
    try (Connection blocker = database()) {
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        s.execute(
            "SELECT * FROM lock.fencing_counters WHERE tenant = 'acme'"
                + " AND workspace = 'ws-blocked' FOR UPDATE");
      }
      HttpResponse<String> blocked = quickAcquire("ws-blocked", "run-b");
      assertUnavailable(blocked);
      assertThat(send("GET", "/health", null).statusCode()).isEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(quickAcquire("ws-free", "run-c").statusCode()).isEqualTo(200));
      blocker.rollback();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(quickAcquire("ws-blocked", "run-b").statusCode()).isEqualTo(200));
  }

  /**
   * Every backend of the quick connections stopped ({@code SIGSTOP}): the database does not answer
   * at all. The quick command answers 503 (socket timeout) instead of hanging the loop, {@code GET
   * /health} still answers, and after the backends run again the service has re-opened its
   * connections in the background and quick commands work without a restart.
   */
  @Test
  void theQuickPathAnswers503WhenTheDatabaseStopsAnsweringAndRecoversWithoutARestart()
      throws Exception {
    assertThat(quickAcquire("ws-silent-warm", "run-a").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> quickBackends().size() == QUICK_CONNECTIONS);
    List<Long> stopped = quickBackends();
    try {
      for (long pid : stopped) {
        signal("STOP", pid);
      }
      HttpResponse<String> silent = quickAcquire("ws-silent", "run-a");
      assertUnavailable(silent);
      assertThat(send("GET", "/health", null).statusCode()).isEqualTo(200);
    } finally {
      for (long pid : stopped) {
        signal("CONT", pid);
      }
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> assertThat(quickAcquire("ws-silent", "run-a").statusCode()).isEqualTo(200));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(quickBackends())
                    .as("the connection that timed out was replaced by a new one")
                    .hasSize(QUICK_CONNECTIONS)
                    .isNotEqualTo(stopped)
                    .anyMatch(pid -> !stopped.contains(pid)));
  }

  private static void assertUnavailable(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
    assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
    JsonNode problem = json(r);
    assertThat(problem.get("type").asText()).endsWith("/quick-path-unavailable");
    assertThat(problem.get("detail").asText()).contains("waiting route");
  }

  /** The PostgreSQL backends of this instance's quick connections. */
  private List<Long> quickBackends() throws Exception {
    List<Long> pids = new ArrayList<>();
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
      ps.setString(1, "stagecraft-lock-quick:" + INSTANCE);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pids.add(rs.getLong(1));
        }
      }
    }
    return pids;
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -" + signal + " " + pid).isZero();
  }

  private Connection database() throws Exception {
    return DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
  }

  // --- requests -----------------------------------------------------------------------------

  private HttpResponse<String> quickAcquire(String ws, String holder) throws Exception {
    return send(
        "POST",
        "/internal/v1/quick/tenants/acme/workspaces/" + ws + "/lock",
        "{\"holder\":\"%s\",\"leaseSeconds\":30,\"info\":\"test\"}".formatted(holder));
  }

  private CompletableFuture<HttpResponse<String>> waitingAcquire(
      String ws, String holder, int waitSeconds) {
    return http.sendAsync(
        request(
            "POST",
            "/internal/v1/tenants/acme/workspaces/" + ws + "/lock",
            "{\"holder\":\"%s\",\"leaseSeconds\":30,\"waitSeconds\":%d}"
                .formatted(holder, waitSeconds)),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> quickHeartbeat(String ws, String lockId) throws Exception {
    return send(
        "POST",
        "/internal/v1/quick/tenants/acme/workspaces/" + ws + "/lock/" + lockId + "/heartbeat",
        null);
  }

  private HttpResponse<String> quickRelease(String ws, String lockId) throws Exception {
    return send(
        "DELETE", "/internal/v1/quick/tenants/acme/workspaces/" + ws + "/lock/" + lockId, null);
  }

  private HttpResponse<String> quickShow(String ws) throws Exception {
    return send("GET", "/internal/v1/quick/tenants/acme/workspaces/" + ws + "/lock", null);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return http.send(request(method, path, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String method, String path, String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.getPort() + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + SERVICE_TOKEN)
        .header("Content-Type", "application/json")
        .method(
            method,
            body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return EventCodec.mapper().readTree(response.body());
  }
}
