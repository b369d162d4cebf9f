package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code stagecraft cancel}: a long step is killed, the run ends canceled, the lock is free. */
class CancelRunTest {

  @Test
  void cancelingAnApplyingRunKillsItsLongStepEndsItCanceledAndFreesTheWorkspace() throws Exception {
    SharedStack stack = SharedStack.get();
    Path started = stack.shared.resolve("cancel-started.txt");
    Path done = stack.shared.resolve("cancel-done.txt");
    Path dir =
        stack.configDir(
            "cancel",
            """
            resource "stateful_provisioning" "slow" {
              state_key = "v1"
              provisioner "local-exec" {
                command = "echo started >> %s; sleep 600; echo done >> %s"
              }
            }
            resource "stateful_provisioning" "after" {
              state_key = "v1"
              depends_on = [stateful_provisioning.slow]
              provisioner "local-exec" {
                command = "echo after >> %s"
              }
            }
            """
                .formatted(started, done, done));
    CompletableFuture<CliResult> apply =
        CompletableFuture.supplyAsync(
            () -> stack.cli(dir, "apply", "-workspace=cancel", "-auto-approve"));
    await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(started));
    long sleeping = commandsRunning(started);
    assertThat(sleeping).as("the step's command runs").isPositive();

    CliResult canceled = stack.cli(dir, "cancel", runningRunOf(stack, "cancel"));
    assertThat(canceled.exitCode()).as(canceled.all()).isZero();

    CliResult result = apply.get(120, TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.all()).isEqualTo(1);
    assertThat(result.all()).contains("Run canceled by ").contains("canceled (canceled by");
    // the command was killed (it would sleep 600 s), and nothing after it ran
    await().atMost(Duration.ofSeconds(30)).until(() -> commandsRunning(started) == 0);
    assertThat(done).doesNotExist();
    JsonNode state =
        new ObjectMapper().readTree(stack.cli(dir, "state", "pull", "-workspace=cancel").out());
    assertThat(state.at("/resources/0/instances/0/status").asText()).isEqualTo("tainted");

    // the lock was released: the next run on the workspace proceeds
    CliResult plan = stack.cli(dir, "plan", "-workspace=cancel", "-detailed-exitcode");
    assertThat(plan.exitCode()).as(plan.all()).isEqualTo(2);
    assertThat(plan.out()).contains("is tainted, so must be replaced");
  }

  /** The id of the run of {@code workspace} that is applying now. */
  private static String runningRunOf(SharedStack stack, String workspace) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(stack.plannerUrl() + "/api/v1/runs"))
                    .header("Authorization", "Bearer " + stack.token())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    for (JsonNode run : new ObjectMapper().readTree(response.body())) {
      if (run.get("workspace").asText().equals(workspace)
          && run.get("status").asText().equals("applying")) {
        return run.get("id").asText();
      }
    }
    throw new AssertionError("no applying run of " + workspace + ": " + response.body());
  }

  /** How many processes run a command line that mentions {@code marker} (the step's shell). */
  private static long commandsRunning(Path marker) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().orElse("").contains(marker.toString()))
        .count();
  }
}
