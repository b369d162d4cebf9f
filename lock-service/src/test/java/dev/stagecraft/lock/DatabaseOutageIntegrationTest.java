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
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * While its PostgreSQL is down, the lock service answers the waiting route with a 503 (Retry-After,
 * a {@code …/database-unavailable} problem) that its callers repeat, not a 500 they give up on, and
 * it answers again once the database is back, without a restart. (Found by the chaos soak: a
 * PostgreSQL restart errored runs whose lock acquire met a 500.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseOutageIntegrationTest {
  private static final String LOCK = "/internal/v1/tenants/acme/workspaces/ws-outage/lock";

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedServer service;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("lock-outage-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg"), 0);
    service =
        ApplicationContext.run(
            EmbeddedServer.class,
            Map.ofEntries(
                Map.entry("micronaut.server.port", -1),
                Map.entry("stagecraft.db.url", postgres.jdbcUrl()),
                Map.entry("stagecraft.db.user", postgres.user()),
                Map.entry("stagecraft.db.password", postgres.password()),
                Map.entry("stagecraft.db.connection-timeout", "1s"),
                Map.entry("stagecraft.service-tokens.planner", TestTokens.PLANNER),
                Map.entry("stagecraft.service-tokens.state", TestTokens.STATE),
                Map.entry("stagecraft.instance-id", "lock-outage-it")));
  }

  @AfterAll
  void stop() throws Exception {
    if (service != null) {
      service.getApplicationContext().close();
    }
    if (postgres != null) {
      postgres.close();
    }
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void theWaitingRouteAnswers503WhileTheDatabaseIsDownAndWorksAgainAfter() throws Exception {
    assertThat(acquire("run-before").statusCode()).isEqualTo(200);
    int port = postgres.port();
    postgres.close();
    postgres = null;

    HttpResponse<String> down = acquire("run-during");
    assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
    assertThat(down.headers().firstValue("Retry-After")).hasValue("1");
    JsonNode problem = EventCodec.mapper().readTree(down.body());
    assertThat(problem.get("type").asText()).endsWith("/database-unavailable");
    assertThat(problem.get("detail").asText()).contains("repeat it");
    HttpResponse<String> show = send("GET", LOCK, null);
    assertThat(show.statusCode()).as(show.body()).isEqualTo(503);

    postgres = EmbeddedPostgresServer.start(dir.resolve("pg"), port);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(send("GET", LOCK, null).statusCode()).isEqualTo(200));
    JsonNode lock = EventCodec.mapper().readTree(send("GET", LOCK, null).body());
    assertThat(lock.toString())
        .as("the lock taken before the outage is kept")
        .contains("run-before");
  }

  private HttpResponse<String> acquire(String holder) throws Exception {
    return send(
        "POST",
        LOCK,
        "{\"holder\":\"%s\",\"leaseSeconds\":60,\"waitSeconds\":0,\"info\":\"test\"}"
            .formatted(holder));
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.getPort() + path))
            .header("Authorization", "Bearer " + TestTokens.PLANNER)
            .timeout(Duration.ofSeconds(30));
    b =
        body == null
            ? b.method(method, HttpRequest.BodyPublishers.noBody())
            : b.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
