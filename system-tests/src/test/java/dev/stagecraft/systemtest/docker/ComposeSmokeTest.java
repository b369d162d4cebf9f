package dev.stagecraft.systemtest.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose.yml on the local Docker engine, as the README's "With Docker" tells an operator:
 * {@code dev/images}, {@code docker-compose up -d} scaled to three executors and two planners
 * (every container healthy; runs sent to either planner spread across the executors), a tenant and
 * its token from the operator token, the quickstart applied with the CLI pointed at the compose
 * planner ({@code STAGECRAFT_ADDR}), its state kept across {@code down} + {@code up} (named
 * volumes), and nothing left running after {@code down}. Skipped, with one line saying why, only
 * when no engine answers.
 */
class ComposeSmokeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ComposeStack stack;
  @TempDir Path tmp;

  @BeforeEach
  void images() throws IOException {
    DockerEngine.assumeEngine();
    DockerEngine.buildImages();
    stack = new ComposeStack("stagecraft-smoke-" + UUID.randomUUID().toString().substring(0, 8));
  }

  @AfterEach
  void removeProject() throws IOException {
    if (stack != null) {
      stack.destroy();
      assertThat(stack.containers()).as("containers left by down -v").isEmpty();
      assertThat(stack.volumes()).as("volumes left by down -v").isEmpty();
    }
  }

  @Test
  void composeUpAppliesTheQuickstartAndKeepsItsStateAcrossDownAndUp() throws Exception {
    // scaled as README "With Docker" shows: three executors, two planners (plus Kafka, PostgreSQL,
    // the lock and the state service)
    stack.upHealthy(9, "--scale", "executor-service=3", "--scale", "planner-service=2");
    String token = tenantToken("smoke");
    Path config = quickstart();
    runsSpreadAcrossExecutorsThroughBothPlanners(config, token);

    Cli apply = cli(config, token, "apply", "-auto-approve", "-var", "revision_to_deploy=r1");
    assertThat(apply.exitCode()).as(apply.output()).isZero();
    assertThat(apply.output())
        .contains("deploying revision r1")
        .contains("smoke testing revision r1");
    JsonNode state = statePull(config, token);
    long serial = state.get("serial").asLong();
    assertThat(serial).isPositive();
    assertThat(resourceNames(state)).containsExactlyInAnyOrder("app", "smoke_test");

    // down keeps the named volumes; nothing of the project runs any more
    stack.compose(Duration.ofMinutes(5), "down");
    assertThat(stack.containers()).as("containers after down").isEmpty();
    // compose creates every declared volume, the observability profile's too; the data is in these
    assertThat(stack.volumes())
        .as("named volumes after down")
        .contains(stack.project + "_kafka-data", stack.project + "_postgres-data");

    stack.upHealthy();
    JsonNode again = statePull(config, token);
    assertThat(again.get("serial").asLong()).isEqualTo(serial);
    assertThat(again.get("lineage").asText()).isEqualTo(state.get("lineage").asText());
    Cli noop = cli(config, token, "apply", "-auto-approve", "-var", "revision_to_deploy=r1");
    assertThat(noop.exitCode()).as(noop.output()).isZero();
    assertThat(noop.output()).doesNotContain("deploying revision");
    assertThat(statePull(config, token).get("serial").asLong()).isEqualTo(serial);

    stack.compose(Duration.ofMinutes(5), "down");
    assertThat(stack.containers()).as("containers after the last down").isEmpty();
  }

  /**
   * Runs of the quickstart in workspaces of their own, sent alternately to each planner (both
   * answer /health), until their actions were started on at least two executors (each {@code
   * started on <instance>} line of a run's events names one): the scaled executors are distinct
   * instances that share the work.
   */
  private void runsSpreadAcrossExecutorsThroughBothPlanners(Path config, String token)
      throws Exception {
    List<String> planners = stack.plannerUrls(2);
    assertThat(planners).doesNotHaveDuplicates();
    HttpClient http = HttpClient.newHttpClient();
    for (String planner : planners) {
      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(URI.create(planner + "/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(planner + " /health").isEqualTo(200);
    }
    Set<String> executors = new TreeSet<>();
    for (int i = 0; i < 12 && executors.size() < 2; i++) {
      String planner = planners.get(i % 2);
      String ws = "-workspace=spread-" + i;
      Cli apply =
          cli(
              planner,
              config,
              token,
              "apply",
              ws,
              "-auto-approve",
              "-var",
              "revision_to_deploy=r1");
      assertThat(apply.exitCode()).as(apply.output()).isZero();
      JsonNode runs =
          JSON.readTree(get(http, planner, "/api/v1/runs?workspace=spread-" + i, token));
      assertThat(runs).hasSize(1);
      String id = runs.get(0).get("id").asText();
      JsonNode events =
          JSON.readTree(get(http, planner, "/api/v1/runs/" + id + "/events?after=0", token));
      for (JsonNode e : events.path("events")) {
        String message = e.path("message").asText();
        if (e.path("kind").asText().equals("action") && message.startsWith("started on ")) {
          executors.add(message.substring("started on ".length()));
        }
      }
    }
    assertThat(executors).as("executors that started the runs' actions").hasSizeGreaterThan(1);
  }

  private static String get(HttpClient http, String base, String path, String token)
      throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  private static List<String> resourceNames(JsonNode state) {
    List<String> names = new ArrayList<>();
    state.get("resources").forEach(r -> names.add(r.get("name").asText()));
    return names;
  }

  private JsonNode statePull(Path config, String token) throws IOException {
    Cli pull = cli(config, token, "state", "pull");
    assertThat(pull.exitCode()).as(pull.output()).isZero();
    return JSON.readTree(pull.output());
  }

  /** A copy of examples/quickstart (the CLI writes nothing into the repository's). */
  private Path quickstart() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("quickstart"));
    Files.copy(
        DockerEngine.repoRoot().resolve("examples/quickstart/main.tf"), dir.resolve("main.tf"));
    return dir;
  }

  record Cli(int exitCode, String output) {}

  /**
   * {@code stagecraft -chdir=DIR ARGS...} as a process: the packaged CLI jar, which {@code
   * ./stagecraft} runs after checking the build, pointed at the compose planner.
   */
  private Cli cli(Path dir, String token, String... args) throws IOException {
    return cli(stack.plannerUrl(), dir, token, args);
  }

  /** {@code stagecraft -chdir=DIR ARGS...} pointed at the planner at {@code planner}. */
  private Cli cli(String planner, Path dir, String token, String... args) throws IOException {
    DockerEngine.Result r = DockerEngine.cli(planner, token, tmp.resolve("home"), dir, args);
    return new Cli(r.exitCode(), r.output());
  }

  /** A new tenant and an admin token of it, from the operator token (docs/operations.md). */
  private String tenantToken(String tenant) throws Exception {
    String operator = stack.env.get("STAGECRAFT_OPERATOR_TOKEN");
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> created =
        http.send(
            post("/internal/v1/tenants", operator, "{\"name\":\"" + tenant + "\"}"),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    HttpResponse<String> token =
        http.send(
            post("/internal/v1/tenants/" + tenant + "/tokens", operator, "{\"role\":\"admin\"}"),
            HttpResponse.BodyHandlers.ofString());
    assertThat(token.statusCode()).as(token.body()).isEqualTo(201);
    return JSON.readTree(token.body()).get("token").asText();
  }

  private HttpRequest post(String path, String bearer, String body) {
    return HttpRequest.newBuilder(URI.create(stack.stateUrl() + path))
        .header("Authorization", "Bearer " + bearer)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(30))
        .build();
  }
}
