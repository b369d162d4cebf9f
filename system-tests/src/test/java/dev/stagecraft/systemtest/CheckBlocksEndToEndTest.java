package dev.stagecraft.systemtest;

import static dev.stagecraft.systemtest.RunApprovalEndToEndTest.call;
import static dev.stagecraft.systemtest.RunApprovalEndToEndTest.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code check} blocks over the real stack: a check that fails is a warning, at plan time and again
 * after apply, and the apply goes through; one that can only be decided after apply is decided
 * then, in the run's closing message (the CLI's output, the run's record and its log).
 */
class CheckBlocksEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aFailingCheckIsAWarningAfterApplyAndTheApplySucceeds() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "checks-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    Path log = stack.shared.resolve(ws + ".log");
    Path dir =
        stack.configDir(
            ws,
            """
            variable "rev" {
            }
            resource "terraform_data" "app" {
              input = var.rev
              provisioner "local-exec" {
                command = "echo applied ${var.rev} >> %s"
              }
            }
            check "release_name" {
              assert {
                condition     = startswith(var.rev, "release-")
                error_message = "Revision ${var.rev} is not a release."
              }
            }
            check "app_id" {
              assert {
                condition     = terraform_data.app.id == "expected-id"
                error_message = "The app got id ${terraform_data.app.id}, not expected-id."
              }
            }
            """
                .formatted(log));

    CliResult applied =
        stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve", "-var", "rev=r1");

    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(Files.readAllLines(log)).containsExactly("applied r1");
    assertThat(applied.out())
        .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.")
        .contains("Warning: Check block assertion failed")
        .contains("The app got id ")
        .contains("Revision r1 is not a release.");

    JsonNode runs = JSON.readTree(call(stack, "GET", "/api/v1/runs?workspace=" + ws, null).body());
    JsonNode list = runs.isArray() ? runs : runs.path("runs");
    String runId = list.get(0).get("id").asText();
    JsonNode run = get(stack, runId);
    assertThat(run.get("status").asText()).isEqualTo("applied");
    String closing = run.get("message").asText();
    assertThat(closing)
        .startsWith("Apply complete!")
        .contains("Warning: Check block assertion failed")
        .contains("not expected-id.")
        .contains("This was checked by check.app_id after apply");

    List<RunLogEvents.Sse> events =
        RunLogEvents.readAll(
            stack.plannerUrl(), stack.token(), runId, null, Duration.ofSeconds(30));
    // at plan time: the release name fails, the app's id is not known yet
    JsonNode planned =
        events.stream()
            .map(RunLogEvents.Sse::data)
            .filter(e -> "planned".equals(e.path("status").asText()))
            .findFirst()
            .orElseThrow();
    assertThat(planned.get("message").asText())
        .contains("Warning: Check block assertion failed")
        .contains("Revision r1 is not a release.")
        .contains("Warning: Check block assertion known after apply");
    JsonNode last = events.get(events.size() - 1).data();
    assertThat(last.path("status").asText()).isEqualTo("applied");
    assertThat(last.get("message").asText()).isEqualTo(closing);

    // the plan JSON reports both checks as Terraform does
    CliResult plan = stack.cli(dir, "plan", "-workspace=" + ws, "-var", "rev=release-2");
    assertThat(plan.exitCode()).as(plan.all()).isZero();
    assertThat(plan.out())
        .contains("Warning: Check block assertion failed")
        .contains("not expected-id.")
        .doesNotContain("is not a release");
  }
}
