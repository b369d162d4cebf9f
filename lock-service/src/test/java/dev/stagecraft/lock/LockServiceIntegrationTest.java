package dev.stagecraft.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
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
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two lock-service instances on one real PostgreSQL: waiting, hand-over, expiry, and that the
 * database (not the JVM) keeps a lock from being granted twice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockServiceIntegrationTest {
  private static final String SERVICE_TOKEN = "test-service-token";

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedServer first;
  private EmbeddedServer second;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("lock-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    first = startInstance("lock-1");
    second = startInstance("lock-2");
  }

  private EmbeddedServer startInstance(String id) {
    return ApplicationContext.run(
        EmbeddedServer.class,
        Map.of(
            "micronaut.server.port",
            -1,
            "stagecraft.db.url",
            postgres.jdbcUrl(),
            "stagecraft.db.user",
            postgres.user(),
            "stagecraft.db.password",
            postgres.password(),
            "stagecraft.service-token",
            SERVICE_TOKEN,
            "stagecraft.instance-id",
            id));
  }

  @AfterAll
  void stop() throws Exception {
    for (EmbeddedServer server : new EmbeddedServer[] {first, second}) {
      if (server != null) {
        server.getApplicationContext().close();
      }
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
  void secondHolderWaitsAndGetsTheLockRightAfterTheFirstReleases() throws Exception {
    JsonNode a = json(acquire(first, "ws-handover", "run-a", 30, 0));
    long tokenA = a.get("fencingToken").asLong();

    CompletableFuture<HttpResponse<String>> waiting =
        acquireAsync(second, "ws-handover", "run-b", 30, 20);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(json(show(first, "ws-handover")).get("queue").toString())
                    .isEqualTo("[\"run-b\"]"));
    assertThat(waiting).isNotDone();

    assertThat(release(first, "ws-handover", a.get("lockId").asText()).statusCode()).isEqualTo(200);

    HttpResponse<String> granted = waiting.get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(granted.statusCode()).isEqualTo(200);
    JsonNode b = json(granted);
    assertThat(b.get("fencingToken").asLong()).isGreaterThan(tokenA);
    JsonNode view = json(show(second, "ws-handover"));
    assertThat(view.get("holder").asText()).isEqualTo("run-b");
    assertThat(view.get("queue")).isEmpty();
    assertThat(release(first, "ws-handover", a.get("lockId").asText()).statusCode())
        .isEqualTo(200); // idempotent
  }

  @Test
  void anExpiredLeaseIsTakenOverAndItsHeartbeatIsRefused() throws Exception {
    JsonNode a = json(acquire(first, "ws-expiry", "run-a", 1, 0));

    HttpResponse<String> takeover =
        acquireAsync(second, "ws-expiry", "run-b", 30, 15)
            .get(15, java.util.concurrent.TimeUnit.SECONDS);

    assertThat(takeover.statusCode()).isEqualTo(200);
    assertThat(json(takeover).get("fencingToken").asLong())
        .isGreaterThan(a.get("fencingToken").asLong());
    HttpResponse<String> heartbeat = heartbeat(first, "ws-expiry", a.get("lockId").asText());
    assertThat(heartbeat.statusCode()).isEqualTo(410);
    assertThat(heartbeat.headers().firstValue("content-type")).hasValue("application/problem+json");
  }

  @Test
  void waitersThatTimeOutKeepTheirFifoPlace() throws Exception {
    JsonNode a = json(acquire(first, "ws-queue", "run-a", 30, 0));

    HttpResponse<String> b = acquire(first, "ws-queue", "run-b", 30, 0);
    HttpResponse<String> c = acquire(second, "ws-queue", "run-c", 30, 1);
    HttpResponse<String> bAgain = acquire(second, "ws-queue", "run-b", 30, 0);

    assertThat(b.statusCode()).isEqualTo(202);
    assertThat(json(b).get("position").asInt()).isEqualTo(1);
    assertThat(json(c).get("position").asInt()).isEqualTo(2);
    assertThat(json(c).get("queued").asBoolean()).isTrue();
    assertThat(json(bAgain).get("position").asInt()).isEqualTo(1);
    assertThat(heartbeat(first, "ws-queue", a.get("lockId").asText()).statusCode()).isEqualTo(200);

    release(first, "ws-queue", a.get("lockId").asText());
    assertThat(acquire(first, "ws-queue", "run-c", 30, 0).statusCode()).isEqualTo(202);
    assertThat(acquire(first, "ws-queue", "run-b", 30, 0).statusCode()).isEqualTo(200);
  }

  @Test
  void twoInstancesNeverGrantTheSameLockTwice() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      calls.add(acquireAsync(i % 2 == 0 ? first : second, "ws-race", "run-" + i, 30, 0));
    }
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      responses.add(call.get(30, java.util.concurrent.TimeUnit.SECONDS));
    }

    assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(1);
    assertThat(responses).filteredOn(r -> r.statusCode() == 202).hasSize(11);
    try (Connection c =
            DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FILTER (WHERE type = 'acquired'),"
                    + " count(*) FILTER (WHERE type = 'enqueued')"
                    + " FROM lock.lock_events WHERE workspace = 'ws-race'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
      assertThat(rs.getInt(2)).isEqualTo(11);
    }
  }

  @Test
  void rejectsCallsWithoutTheServiceTokenAndInvalidBodies() throws Exception {
    HttpResponse<String> anonymous =
        http.send(
            HttpRequest.newBuilder(uri(first, "/internal/v1/tenants/t/workspaces/w/lock")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(json(anonymous).get("status").asInt()).isEqualTo(401);

    HttpResponse<String> bad =
        send(first, "POST", "/tenants/t/workspaces/w/lock", "{\"leaseSeconds\":-1}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(json(bad).get("detail").asText()).contains("holder");
  }

  // --- fixtures -----------------------------------------------------------------------------

  private HttpResponse<String> acquire(
      EmbeddedServer server, String ws, String holder, int leaseSeconds, int waitSeconds)
      throws Exception {
    return acquireAsync(server, ws, holder, leaseSeconds, waitSeconds).get();
  }

  private CompletableFuture<HttpResponse<String>> acquireAsync(
      EmbeddedServer server, String ws, String holder, int leaseSeconds, int waitSeconds) {
    String body =
        "{\"holder\":\"%s\",\"leaseSeconds\":%d,\"waitSeconds\":%d,\"info\":\"test\"}"
            .formatted(holder, leaseSeconds, waitSeconds);
    return http.sendAsync(
        request(server, "POST", "/tenants/acme/workspaces/" + ws + "/lock", body),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> heartbeat(EmbeddedServer server, String ws, String lockId)
      throws Exception {
    return send(
        server, "POST", "/tenants/acme/workspaces/" + ws + "/lock/" + lockId + "/heartbeat", null);
  }

  private HttpResponse<String> release(EmbeddedServer server, String ws, String lockId)
      throws Exception {
    return send(server, "DELETE", "/tenants/acme/workspaces/" + ws + "/lock/" + lockId, null);
  }

  private HttpResponse<String> show(EmbeddedServer server, String ws) throws Exception {
    return send(server, "GET", "/tenants/acme/workspaces/" + ws + "/lock", null);
  }

  private HttpResponse<String> send(EmbeddedServer server, String method, String path, String body)
      throws Exception {
    return http.send(request(server, method, path, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(EmbeddedServer server, String method, String path, String body) {
    return HttpRequest.newBuilder(uri(server, "/internal/v1" + path))
        .header("Authorization", "Bearer " + SERVICE_TOKEN)
        .header("Content-Type", "application/json")
        .method(
            method,
            body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private static URI uri(EmbeddedServer server, String path) {
    return URI.create("http://127.0.0.1:" + server.getPort() + path);
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return EventCodec.mapper().readTree(response.body());
  }
}
