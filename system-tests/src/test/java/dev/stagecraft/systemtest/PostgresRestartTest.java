package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.devstack.StackService;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL is stopped and started again (same data directory and port) while a run applies a
 * chain of steps, and a step finishes while it is down: no event recorded before the restart is
 * lost, the run ends applied or errored with a message (never stuck), the history holds each of the
 * run's completed steps exactly once, and the state, lock and planner services reconnect by
 * themselves (the next run succeeds without restarting them).
 */
class PostgresRestartTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    // The outage lasts beyond the pool's 30 s connection timeout; the planner's instance lease is
    // set longer than that, as docs/operations.md asks of an installation that should ride out
    // such outages (with the default 15 s it halts with status 75 and is started again, and the
    // run-log entries it had not written yet are lost: see the closing note of issue 28)
    stack =
        SharedStack.dedicated("pg-restart", Map.of("STAGECRAFT_PLANNER_INSTANCE_LEASE", "120s"));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void aRunSurvivesAPostgresRestartWithItsHistoryIntactAndTheServicesReconnect() throws Exception {
    Path log = stack.shared.resolve("pg-restart-steps.txt");
    Path gate = stack.shared.resolve("pg-restart-gate");
    Path dir =
        stack.configDir(
            "pg-restart",
            """
            variable "key" {}
            resource "stateful_provisioning" "one" {
              state_key = var.key
              provisioner "local-exec" {
                command = "echo one >> %1$s"
              }
            }
            resource "stateful_provisioning" "two" {
              state_key  = var.key
              depends_on = [stateful_provisioning.one]
              provisioner "local-exec" {
                command = "echo two >> %1$s; i=0; while [ ! -f %2$s ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done"
              }
            }
            resource "stateful_provisioning" "three" {
              state_key  = var.key
              depends_on = [stateful_provisioning.two]
              provisioner "local-exec" {
                command = "echo three >> %1$s"
              }
            }
            resource "stateful_provisioning" "four" {
              state_key  = var.key
              depends_on = [stateful_provisioning.three]
              provisioner "local-exec" {
                command = "echo four >> %1$s"
              }
            }
            """
                .formatted(log, gate));
    CompletableFuture<CliResult> apply =
        CompletableFuture.supplyAsync(
            () -> stack.cli(dir, "apply", "-workspace=pgr", "-auto-approve", "-var", "key=r1"));
    // step one was recorded (two only starts after one's state.recorded) and two is running
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> Files.exists(log) && Files.readString(log).contains("two"));
    List<JsonNode> before = history("pgr");
    assertThat(before).as("step one is in the history before the restart").isNotEmpty();

    // PostgreSQL goes down; step two finishes while it is down, so recording its result fails
    // until it is back (the listener retries with backoff instead of skipping or committing)
    Path stateLog = stack.stack().layout().serviceLog(StackService.STATE);
    long retriesBefore = retries(stateLog);
    stack.stack().stopPostgres();
    Files.writeString(gate, "go");
    // (an attempt while the server is down fails once the pool's 30 s connection timeout passed)
    await().atMost(Duration.ofSeconds(120)).until(() -> retries(stateLog) > retriesBefore);
    stack.stack().startPostgres();

    CliResult result = apply.get(180, TimeUnit.SECONDS);
    String runId = onlyRunOf("pgr");
    JsonNode run = get(stack.plannerUrl() + "/api/v1/runs/" + runId);
    String status = run.get("status").asText();
    assertThat(status).as(result.all()).isIn("applied", "errored");
    if (status.equals("errored")) {
      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.err()).as("an errored run says why").containsPattern("Error: \\S+");
    } else {
      assertThat(result.exitCode()).as(result.all()).isZero();
    }

    // nothing recorded before the restart was lost
    List<JsonNode> after = history("pgr");
    assertThat(after.subList(0, before.size())).isEqualTo(before);
    // per address of the run: one instance write per step the run reports complete, no duplicates
    Map<String, Integer> written = new HashMap<>();
    for (JsonNode e : after) {
      if (runId.equals(e.path("runId").asText())
          && e.get("type").asText().startsWith("instance_")) {
        written.merge(e.get("address").asText(), 1, Integer::sum);
      }
    }
    List<String> completed = new ArrayList<>();
    for (JsonNode e :
        get(stack.plannerUrl() + "/api/v1/runs/" + runId + "/events?after=0").path("events")) {
      if (e.get("kind").asText().equals("action")
          && e.path("message").asText().equals("complete")) {
        completed.add(e.get("address").asText());
      }
    }
    assertThat(completed).as("no step reported complete twice").doesNotHaveDuplicates();
    Map<String, Integer> expected = new HashMap<>();
    completed.forEach(a -> expected.put(a, 1));
    assertThat(written).as("history vs the run's action events").isEqualTo(expected);
    if (status.equals("applied")) {
      assertThat(completed).hasSize(4);
    }
    List<Long> sequences = after.stream().map(e -> e.get("sequence").asLong()).toList();
    for (int i = 0; i < sequences.size(); i++) {
      assertThat(sequences.get(i)).as("no gap in the history").isEqualTo(i + 1L);
    }

    // the services reconnected by themselves: the next run goes through
    CliResult next = stack.cli(dir, "apply", "-workspace=pgr", "-auto-approve", "-var", "key=r2");
    assertThat(next.exitCode()).as(next.all()).isZero();
    assertThat(next.out()).contains("Apply complete");
  }

  /** How many times the state service logged retrying an action result's recording. */
  private static long retries(Path log) throws java.io.IOException {
    return new String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.UTF_8)
        .lines()
        .filter(l -> l.contains("ActionResultListener") && l.contains("failed, retrying"))
        .count();
  }

  private static List<JsonNode> history(String workspace) throws Exception {
    List<JsonNode> events = new ArrayList<>();
    get(stack.stack().info().state() + "/api/v1/workspaces/" + workspace + "/state/events")
        .forEach(events::add);
    return events;
  }

  private static String onlyRunOf(String workspace) throws Exception {
    List<String> ids = new ArrayList<>();
    for (JsonNode run : get(stack.plannerUrl() + "/api/v1/runs")) {
      if (run.get("workspace").asText().equals(workspace)) {
        ids.add(run.get("id").asText());
      }
    }
    assertThat(ids).hasSize(1);
    return ids.get(0);
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .header("Authorization", "Bearer " + stack.token())
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(url + ": " + response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
