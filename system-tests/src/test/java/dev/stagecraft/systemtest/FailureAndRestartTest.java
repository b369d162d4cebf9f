package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A failing provisioner taints the instance and releases the lock; state survives a restart. */
class FailureAndRestartTest {
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void aFailingCommandFailsTheApplyTaintsTheInstanceAndTheNextPlanReplacesIt() throws Exception {
    Path attempts = stack.shared.resolve("failing-attempts.txt");
    Path dir =
        stack.configDir(
            "failing",
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              provisioner "local-exec" {
                command = "echo attempt >> %s; echo 'migration blew up' >&2; exit 3"
              }
            }
            """
                .formatted(attempts));
    CliResult failed = stack.cli(dir, "apply", "-workspace=failing", "-auto-approve");
    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(1);
    assertThat(failed.all()).contains("migration blew up").contains("exit code 3");
    JsonNode state =
        new ObjectMapper().readTree(stack.cli(dir, "state", "pull", "-workspace=failing").out());
    assertThat(state.at("/resources/0/instances/0/status").asText()).isEqualTo("tainted");

    CliResult plan = stack.cli(dir, "plan", "-workspace=failing", "-detailed-exitcode");
    assertThat(plan.exitCode()).as(plan.all()).isEqualTo(2);
    assertThat(plan.out()).contains("is tainted, so must be replaced");

    // the lock was released: a new run on the workspace proceeds (and fails the same way)
    CliResult again = stack.cli(dir, "apply", "-workspace=failing", "-auto-approve");
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(Files.readAllLines(attempts)).hasSize(2);
  }

  @Test
  void stateAndHistorySurviveAStopAndStartOfTheStack() throws Exception {
    Path dir =
        stack.configDir(
            "restart",
            """
            resource "stateful_provisioning" "kept" {
              state_key = "before-restart"
            }
            """);
    CliResult applied = stack.cli(dir, "apply", "-workspace=restart", "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    String before = stack.cli(dir, "state", "pull", "-workspace=restart").out();

    stack.restart();

    CliResult pulled = stack.cli(dir, "state", "pull", "-workspace=restart");
    assertThat(pulled.exitCode()).as(pulled.all()).isZero();
    assertThat(pulled.out()).isEqualTo(before);
    CliResult plan = stack.cli(dir, "plan", "-workspace=restart", "-detailed-exitcode");
    assertThat(plan.exitCode()).as(plan.all()).isZero();

    // the run from before the restart is still listed, and its recorded transitions readable
    CliResult runs = stack.cli(dir, "runs", "list", "-workspace=restart", "-status=applied");
    assertThat(runs.exitCode()).as(runs.all()).isZero();
    String[] rows = runs.out().strip().split("\n");
    assertThat(rows).as(runs.all()).hasSize(2); // header + the applied run
    String runId = rows[1].strip().split("\\s+")[0];
    CliResult logs = stack.cli(dir, "runs", "logs", runId);
    assertThat(logs.exitCode()).as(logs.all()).isZero();
    assertThat(logs.out()).contains("Apply complete!").doesNotContain("add -follow");
  }
}
