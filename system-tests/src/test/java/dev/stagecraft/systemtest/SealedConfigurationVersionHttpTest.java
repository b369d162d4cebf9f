package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A configuration version sealed at rest that the planner cannot open (its key id is not in the
 * keyring, docs/adr/0024) over the real HTTP server of the stack's planner: {@code POST
 * /api/v1/runs} with that {@code configurationVersion}, and {@code GET
 * /api/v1/configuration-versions/{id}}, answer 409 as a problem document naming the version and the
 * key id, with none of the content, and no run is started.
 */
class SealedConfigurationVersionHttpTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void aVersionSealedWithAKeyThePlannerDoesNotHaveIs409OverHttpAndStartsNothing() throws Exception {
    String marker = "Zq-" + UUID.randomUUID();
    String config =
        "resource \"stateful_provisioning\" \"app\" {\n  state_key = \"" + marker + "\"\n}\n";
    HttpResponse<String> created =
        send(
            "POST",
            "/api/v1/configuration-versions",
            EventCodec.mapper().writeValueAsString(Map.of("files", Map.of("main.tf", config))));
    assertThat(created.statusCode()).as(created.body()).isIn(200, 201);
    String id = EventCodec.mapper().readTree(created.body()).get("id").asText();
    assertThat(send("GET", "/api/v1/configuration-versions/" + id, null).statusCode())
        .isEqualTo(200);

    // the row now names a key this planner does not hold (a retired key)
    try (Connection c = stack.stack().openDatabase();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE planner.configuration_versions"
                    + " SET sealed_content = (sealed_content::jsonb"
                    + " || '{\"kid\":\"retired-key\"}'::jsonb)::text"
                    + " WHERE id = ? AND sealed_content IS NOT NULL")) {
      ps.setString(1, id);
      assertThat(ps.executeUpdate()).as("the stack seals configuration versions").isEqualTo(1);
    }
    String workspace = "sealed-cv-" + marker.substring(3, 15);

    HttpResponse<String> run =
        send(
            "POST",
            "/api/v1/runs",
            EventCodec.mapper()
                .writeValueAsString(Map.of("workspace", workspace, "configurationVersion", id)));
    HttpResponse<String> read = send("GET", "/api/v1/configuration-versions/" + id, null);

    for (HttpResponse<String> response : java.util.List.of(run, read)) {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(409);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
      JsonNode problem = EventCodec.mapper().readTree(response.body());
      assertThat(problem.path("title").asText())
          .isEqualTo("Configuration version cannot be opened");
      assertThat(problem.path("detail").asText()).contains(id).contains("'retired-key'");
      assertThat(response.body()).doesNotContain(marker);
    }
    HttpResponse<String> runs = send("GET", "/api/v1/runs?workspace=" + workspace, null);
    assertThat(runs.statusCode()).as(runs.body()).isEqualTo(200);
    assertThat(EventCodec.mapper().readTree(runs.body())).as(runs.body()).isEmpty();
  }

  private static HttpResponse<String> send(String method, String path, String json)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .header("Authorization", "Bearer " + stack.token());
    if (json != null) {
      b.header("Content-Type", "application/json");
    }
    return HTTP.send(
        b.method(
                method,
                json == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
