package dev.stagecraft.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Who may call the lock routes (docs/internal-api.md, "Service roles"), on a lock service over a
 * real PostgreSQL: every route — one workspace, several workspaces — takes the planner's and the
 * state service's tokens, and refuses with 401 a call without a token, with an unknown one, or with
 * the operator's (the lock service is not given it, so it cannot tell it from a guess). No 403 can
 * happen here: both roles the lock service knows are accepted on every route.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockRouteRolesIntegrationTest {
  private static final String OPERATOR_TOKEN = "test-operator-token";
  private static final List<String> ROUTE_FAMILIES = List.of("/internal/v1");

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedServer service;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("lock-roles-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    service = ApplicationContext.run(EmbeddedServer.class, settings(TestTokens.properties()));
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
  void thePlannerAndTheStateServiceMayCallEverySingleWorkspaceRoute() throws Exception {
    for (String token : List.of(TestTokens.PLANNER, TestTokens.STATE)) {
      for (String family : ROUTE_FAMILIES) {
        String lock = family + "/tenants/acme/workspaces/ws-" + token + family.length() + "/lock";
        JsonNode granted = json(call(token, "POST", lock, acquireBody("h1")), 200);
        String lockId = granted.get("lockId").asText();
        assertThat(json(call(token, "GET", lock, null), 200).get("holder").asText())
            .isEqualTo("h1");
        json(call(token, "POST", lock + "/" + lockId + "/heartbeat", null), 200);
        json(call(token, "DELETE", lock + "/" + lockId, null), 200);

        String forcedId =
            json(call(token, "POST", lock, acquireBody("h2")), 200).get("lockId").asText();
        json(
            call(
                token,
                "POST",
                lock + "/" + forcedId + "/force-release",
                "{\"actor\":\"api-token:ops\",\"reason\":\"roles test\"}"),
            200);
        assertThat(json(call(token, "GET", lock, null), 200).get("holder").isNull())
            .as("free after the force-release on %s", family)
            .isTrue();
      }
    }
  }

  @Test
  void thePlannerAndTheStateServiceMayLockSeveralWorkspaces() throws Exception {
    for (String token : List.of(TestTokens.PLANNER, TestTokens.STATE)) {
      String body =
          "{\"holder\":\"multi-%s\",\"workspaces\":[\"m1-%s\",\"m2-%s\"],\"leaseSeconds\":30}"
              .formatted(token, token, token);
      JsonNode granted = json(call(token, "POST", "/internal/v1/tenants/acme/locks", body), 200);
      assertThat(granted.get("locks")).hasSize(2);
    }
  }

  @Test
  void everyRouteRefusesNoTokenAnUnknownOneAndTheOperatorsWith401() throws Exception {
    List<String[]> routes =
        List.of(
            new String[] {"POST", "/tenants/acme/workspaces/ws-refused/lock"},
            new String[] {"GET", "/tenants/acme/workspaces/ws-refused/lock"},
            new String[] {"POST", "/tenants/acme/workspaces/ws-refused/lock/L/heartbeat"},
            new String[] {"DELETE", "/tenants/acme/workspaces/ws-refused/lock/L"},
            new String[] {"POST", "/tenants/acme/workspaces/ws-refused/lock/L/force-release"});
    for (String family : ROUTE_FAMILIES) {
      for (String[] route : routes) {
        for (String token : new String[] {null, "not-a-token", OPERATOR_TOKEN}) {
          assertRefused401(call(token, route[0], family + route[1], acquireBody("intruder")));
        }
      }
    }
    for (String token : new String[] {null, "not-a-token", OPERATOR_TOKEN}) {
      assertRefused401(
          call(
              token,
              "POST",
              "/internal/v1/tenants/acme/locks",
              "{\"holder\":\"intruder\",\"workspaces\":[\"ws-refused\"],\"leaseSeconds\":30}"));
    }
    assertThat(
            json(
                    call(
                        TestTokens.PLANNER,
                        "GET",
                        "/internal/v1/tenants/acme/workspaces/ws-refused/lock",
                        null),
                    200)
                .get("holder")
                .isNull())
        .as("no refused call took the lock")
        .isTrue();
  }

  @Test
  void aLockServiceWithoutTheStateServicesTokenDoesNotStart() {
    assertThatThrownBy(
            () ->
                ApplicationContext.run(
                        EmbeddedServer.class,
                        settings(Map.of("stagecraft.service-tokens.planner", TestTokens.PLANNER)))
                    .close())
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains("lock-service cannot start")
                    .contains("STAGECRAFT_SERVICE_TOKEN_STATE is not set"));
  }

  private void assertRefused401(HttpResponse<String> refused) throws Exception {
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(json(refused).get("detail").asText())
        .contains("the planner, state roles")
        .doesNotContain(OPERATOR_TOKEN)
        .doesNotContain("not-a-token");
  }

  private Map<String, Object> settings(Map<String, Object> tokens) {
    Map<String, Object> settings = new HashMap<>(tokens);
    settings.put("micronaut.server.port", -1);
    settings.put("stagecraft.db.url", postgres.jdbcUrl());
    settings.put("stagecraft.db.user", postgres.user());
    settings.put("stagecraft.db.password", postgres.password());
    settings.put("stagecraft.instance-id", "lock-roles-it");
    return settings;
  }

  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  private static String acquireBody(String holder) {
    return "{\"holder\":\"" + holder + "\",\"leaseSeconds\":30,\"waitSeconds\":0}";
  }

  private HttpResponse<String> call(String token, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.getPort() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> response, int expected) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(expected);
    return EventCodec.mapper().readTree(response.body());
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return EventCodec.mapper().readTree(response.body());
  }
}
