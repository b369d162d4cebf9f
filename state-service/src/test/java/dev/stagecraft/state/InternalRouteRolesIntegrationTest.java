package dev.stagecraft.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.EmbeddedKafka;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Who may call which internal route of the state service (docs/internal-api.md, "Service roles"),
 * against a real PostgreSQL and Kafka: each route family with each role — accepted, refused with
 * 403 naming the roles it accepts, refused with 401 without a token or with an unknown one — and
 * nothing changed by a refused call.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InternalRouteRolesIntegrationTest {
  private static final String TENANT = "roles";
  private static final String WS = "/internal/v1/tenants/" + TENANT + "/workspaces/ws";
  private static final String PLANNER_ONLY = "it accepts the planner role";
  private static final String TENANT_ADMINISTRATION = "it accepts the planner, operator roles";

  /** A route and the status an accepted caller gets (its body built anew for every call). */
  private record Route(
      String method, String path, java.util.function.Supplier<String> body, int accepted) {
    @Override
    public String toString() {
      return method + " " + path;
    }
  }

  private final AtomicInteger calls = new AtomicInteger();
  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedKafka kafka;
  private EmbeddedServer server;
  private String apiToken;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("state-roles-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    server = ApplicationContext.run(EmbeddedServer.class, settings(TestTokens.properties()));
    call(server, TestTokens.OPERATOR, "POST", "/internal/v1/tenants", "{\"name\":\"roles\"}");
    apiToken =
        json(
                call(
                    server,
                    TestTokens.OPERATOR,
                    "POST",
                    "/internal/v1/tenants/roles/tokens",
                    "{\"role\":\"admin\"}"),
                201)
            .get("token")
            .asText();
  }

  @AfterAll
  void stop() throws Exception {
    if (server != null) {
      server.getApplicationContext().close(); // before the broker, or clients retry for long
    }
    if (kafka != null) {
      kafka.close();
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

  private List<Route> tenantAdministration() {
    return List.of(
        new Route("POST", "/internal/v1/tenants", () -> "{\"name\":\"roles\"}", 200),
        new Route("GET", "/internal/v1/tenants", () -> null, 200),
        new Route("POST", "/internal/v1/tenants/roles/tokens", () -> "{\"role\":\"reader\"}", 201),
        new Route("GET", "/internal/v1/tenants/roles/tokens", () -> null, 200),
        new Route(
            "POST", "/internal/v1/tenants/roles/tokens/0000000000000000/revoke", () -> "{}", 404),
        new Route("POST", "/internal/v1/tokens/revoke", () -> "{\"token\":\"sc_unknown\"}", 404),
        new Route(
            "POST", "/internal/v1/auth/verify", () -> "{\"token\":\"" + apiToken + "\"}", 200));
  }

  private List<Route> plannerOnly() {
    return List.of(
        new Route("POST", WS + "/run-openings", () -> runBody(), 201),
        new Route("POST", WS + "/run-credentials", () -> runBody(), 201),
        new Route("DELETE", WS + "/run-credentials/run-none", () -> null, 404),
        new Route("GET", WS + "/runs/run-none/action-outcomes", () -> null, 200),
        new Route("POST", WS + "/fencing", () -> "{\"token\":1}", 200),
        new Route(
            "POST",
            WS + "/instances/taint",
            () -> "{\"address\":\"stateful_provisioning.app\",\"tainted\":true,\"fencingToken\":1}",
            404),
        new Route("GET", WS + "/host-keys", () -> null, 200),
        new Route("DELETE", WS + "/host-keys?host=h.example&port=22&actor=a", () -> null, 200),
        new Route("GET", "/internal/v1/tenants/roles/known-hosts", () -> null, 200),
        new Route(
            "POST",
            "/internal/v1/tenants/roles/known-hosts",
            () -> "{\"host\":\"h.example\",\"publicKey\":\"not-a-key\"}",
            400),
        new Route(
            "DELETE",
            "/internal/v1/tenants/roles/known-hosts?host=h.example&port=22",
            () -> null,
            200),
        new Route("GET", WS + "/state", () -> null, 200));
  }

  private String runBody() {
    return "{\"runId\":\"run-" + calls.incrementAndGet() + "\",\"fencingToken\":1}";
  }

  @Test
  void tenantsAndTokensAcceptThePlannerAndOperatorsAndRefuseTheStateServiceWith403()
      throws Exception {
    for (Route route : tenantAdministration()) {
      expect(route, TestTokens.PLANNER, route.accepted());
      expect(route, TestTokens.OPERATOR, route.accepted());
      assertRefused(route, TestTokens.STATE, 403, TENANT_ADMINISTRATION);
    }
  }

  @Test
  void runHostKeyAndStateRoutesAcceptThePlannerOnly() throws Exception {
    for (Route route : plannerOnly()) {
      expect(route, TestTokens.PLANNER, route.accepted());
      assertRefused(route, TestTokens.OPERATOR, 403, PLANNER_ONLY);
      assertRefused(route, TestTokens.STATE, 403, PLANNER_ONLY);
    }
  }

  @Test
  void everyRouteRefusesNoTokenAnUnknownTokenAndAnApiTokenWith401() throws Exception {
    for (Route route : concat(tenantAdministration(), plannerOnly())) {
      for (String token : new String[] {null, "not-a-token", apiToken}) {
        assertRefused(route, token, 401, "with the token of a role it accepts");
      }
    }
  }

  @Test
  void aRefusedCallChangesNothing() throws Exception {
    for (String token : new String[] {null, "not-a-token", TestTokens.STATE}) {
      call(server, token, "POST", "/internal/v1/tenants", "{\"name\":\"refused\"}");
      call(server, token, "POST", WS + "/fencing", "{\"token\":99}");
    }
    call(server, TestTokens.OPERATOR, "POST", WS + "/fencing", "{\"token\":99}");

    assertThat(
            json(call(server, TestTokens.PLANNER, "GET", "/internal/v1/tenants", null), 200)
                .get("tenants")
                .toString())
        .doesNotContain("refused");
    json(call(server, TestTokens.PLANNER, "POST", WS + "/fencing", "{\"token\":2}"), 200);
  }

  @Test
  void withoutTheOperatorTokenTheTenantRoutesAcceptThePlannerOnly() throws Exception {
    Map<String, Object> tokens = new HashMap<>(TestTokens.properties());
    tokens.remove("stagecraft.service-tokens.operator");
    try (ApplicationContext context =
        ApplicationContext.run(EmbeddedServer.class, settings(tokens)).getApplicationContext()) {
      EmbeddedServer second = context.getBean(EmbeddedServer.class);
      json(call(second, TestTokens.PLANNER, "GET", "/internal/v1/tenants", null), 200);
      HttpResponse<String> operator =
          call(second, TestTokens.OPERATOR, "GET", "/internal/v1/tenants", null);
      assertThat(operator.statusCode()).isEqualTo(401);
      assertThat(json(operator).get("detail").asText())
          .contains("state-service was not given STAGECRAFT_OPERATOR_TOKEN");
    }
  }

  @Test
  void aStateServiceWithoutThePlannersTokenDoesNotStart() {
    Map<String, Object> tokens = new HashMap<>(TestTokens.properties());
    tokens.remove("stagecraft.service-tokens.planner");
    assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, settings(tokens)).close())
        .satisfies(
            e -> {
              StringBuilder messages = new StringBuilder();
              for (Throwable t = e; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
              }
              assertThat(messages.toString())
                  .contains("state-service cannot start")
                  .contains("STAGECRAFT_SERVICE_TOKEN_PLANNER is not set")
                  .doesNotContain(TestTokens.STATE);
            });
  }

  private void expect(Route route, String token, int status) throws Exception {
    HttpResponse<String> r = call(server, token, route.method(), route.path(), route.body().get());
    assertThat(r.statusCode()).as("%s with %s: %s", route, token, r.body()).isEqualTo(status);
  }

  private void assertRefused(Route route, String token, int status, String detail)
      throws Exception {
    HttpResponse<String> r = call(server, token, route.method(), route.path(), route.body().get());
    assertThat(r.statusCode()).as("%s with %s: %s", route, token, r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    String said = json(r).get("detail").asText();
    assertThat(said).as("%s with %s", route, token).contains(detail);
    if (token != null) {
      assertThat(said).doesNotContain(token);
    }
  }

  private static List<Route> concat(List<Route> a, List<Route> b) {
    List<Route> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private Map<String, Object> settings(Map<String, Object> tokens) {
    Map<String, Object> settings = new HashMap<>(tokens);
    settings.put("micronaut.server.port", -1);
    settings.put("stagecraft.db.url", postgres.jdbcUrl());
    settings.put("stagecraft.db.user", postgres.user());
    settings.put("stagecraft.db.password", postgres.password());
    settings.put("stagecraft.kafka-bootstrap", kafka.bootstrapServers());
    settings.put("stagecraft.instance-id", "state-roles-it");
    return settings;
  }

  private HttpResponse<String> call(
      EmbeddedServer target, String token, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.getPort() + path))
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
    return json(response);
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return EventCodec.mapper().readTree(response.body());
  }
}
