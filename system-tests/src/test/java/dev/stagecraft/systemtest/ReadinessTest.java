package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.StackInfo;
import dev.stagecraft.schemas.EventCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Health means something (docs/operations.md "Health"): liveness and readiness are separate; a
 * healthy service's status is UP at the top (no indicator reports UNKNOWN); while PostgreSQL is
 * stopped the readiness of the planner, state and lock services is DOWN naming PostgreSQL — and
 * their liveness stays UP, nothing is to be restarted — and once it is back they are ready again
 * without a restart.
 */
class ReadinessTest {
  private static SharedStack stack;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.dedicated("readiness", Map.of());
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void readinessIsDownNamingPostgresWhileItIsStoppedAndUpAfter() throws Exception {
    StackInfo info = stack.stack().info();
    List<String> withDatabase = List.of(info.planner(), info.state(), info.lock());
    for (String url : List.of(info.planner(), info.state(), info.lock(), info.executor())) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(status(url + "/health/readiness")).isEqualTo(200));
      JsonNode health = json(url + "/health");
      assertThat(health.path("status").asText()).as(url + ": " + health).isEqualTo("UP");
      assertThat(health.toString()).as(url).doesNotContain("UNKNOWN");
      assertThat(status(url + "/health/liveness")).as(url).isEqualTo(200);
    }
    for (String url : withDatabase) {
      JsonNode readiness = json(url + "/health/readiness");
      assertThat(readiness.at("/details/database/status").asText())
          .as(url + ": " + readiness)
          .isEqualTo("UP");
    }

    stack.stack().stopPostgres();
    try {
      for (String url : withDatabase) {
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  HttpResponse<String> r = get(url + "/health/readiness");
                  assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(503);
                  JsonNode db = EventCodec.mapper().readTree(r.body()).at("/details/database");
                  assertThat(db.path("status").asText()).isEqualTo("DOWN");
                  assertThat(db.path("details").path("error").asText())
                      .contains("PostgreSQL cannot be reached");
                });
        assertThat(status(url + "/health/liveness")).as(url).isEqualTo(200);
      }
    } finally {
      stack.stack().startPostgres();
    }

    for (String url : withDatabase) {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(status(url + "/health/readiness")).isEqualTo(200));
      assertThat(json(url + "/health").path("status").asText()).isEqualTo("UP");
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private int status(String url) throws Exception {
    return get(url).statusCode();
  }

  private JsonNode json(String url) throws Exception {
    return EventCodec.mapper().readTree(get(url).body());
  }
}
