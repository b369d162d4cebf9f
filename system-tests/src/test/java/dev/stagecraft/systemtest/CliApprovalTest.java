package dev.stagecraft.systemtest;

import static dev.stagecraft.systemtest.RunApprovalEndToEndTest.awaitStatus;
import static dev.stagecraft.systemtest.RunApprovalEndToEndTest.call;
import static dev.stagecraft.systemtest.RunApprovalEndToEndTest.get;
import static dev.stagecraft.systemtest.RunApprovalEndToEndTest.startRun;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CLI on a workspace without auto-apply, over the real stack: its runs wait for approval on the
 * server, so {@code apply} gives the approval the user gave (the plan shown, or with {@code
 * -auto-approve} the plan the run made) instead of following a run that never goes on, and {@code
 * runs approve|discard} decide on a run someone else started. The workspace is made and set with
 * {@code workspaces create|set|list|show}.
 */
class CliApprovalTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  // without the approval the CLI would follow the waiting run for ever
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void applyApprovesTheRunItStartedAndRunsApproveOrDiscardDecideOnOthers() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "cli-approval-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    Path log = stack.shared.resolve(ws + ".log");
    Path dir =
        stack.configDir(
            ws,
            """
            variable "rev" {
            }
            resource "stateful_provisioning" "app" {
              state_key = var.rev
              provisioner "local-exec" {
                command = "echo applied ${var.rev} >> %s"
              }
            }
            """
                .formatted(log));

    CliResult badSetting = stack.cli(dir, "workspaces", "create", ws, "-auto-apply=no");
    assertThat(badSetting.exitCode()).isEqualTo(1);
    assertThat(badSetting.err()).contains("-auto-apply takes true or false");
    assertThat(stack.cli(dir, "workspaces", "show", ws).err()).contains("no workspace " + ws);
    CliResult created = stack.cli(dir, "workspaces", "create", ws, "-auto-apply=false");
    assertThat(created.exitCode()).as(created.all()).isZero();
    assertThat(created.out()).contains("auto-apply:  false (runs wait for approval)");
    assertThat(stack.cli(dir, "workspaces", "list").out())
        .containsPattern(ws + " +false +10 +false");

    // the user says yes to the plan shown: the CLI approves that plan on the server
    CliResult asked =
        stack.cliWithInput(dir, "yes\n", "apply", "-workspace=" + ws, "-var", "rev=r1");
    assertThat(asked.exitCode()).as(asked.all()).isZero();
    assertThat(asked.out()).containsPattern("Approved plan [0-9a-f]{64}\\.");
    assertThat(Files.readAllLines(log)).containsExactly("applied r1");
    JsonNode first = newestRun(stack, ws);
    assertThat(first.get("status").asText()).isEqualTo("applied");
    assertThat(first.get("approvedBy").asText()).isEqualTo("admin@dev");

    CliResult auto = stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve", "-var", "rev=r2");
    assertThat(auto.exitCode()).as(auto.all()).isZero();
    assertThat(Files.readAllLines(log)).containsExactly("applied r1", "applied r2");

    // a run started elsewhere waits: the log says how to decide, and runs approve decides
    String waiting = startRun(stack, ws, "api-1");
    String digest = awaitStatus(stack, waiting, "planned").get("planDigest").asText();
    CliResult logs = stack.cli(dir, "runs", "logs", waiting);
    assertThat(logs.exitCode()).as(logs.all()).isZero();
    assertThat(logs.err())
        .contains("waits for approval of its plan " + digest)
        .contains("stagecraft runs approve " + waiting + " -digest=" + digest);
    CliResult shown = stack.cli(dir, "runs", "show", waiting);
    assertThat(shown.out())
        .contains("plan digest: " + digest)
        .contains("approval:    waiting, until");
    CliResult stale = stack.cli(dir, "runs", "approve", waiting, "-digest=sha256:other");
    assertThat(stale.exitCode()).isEqualTo(1);
    assertThat(stale.err()).contains("is not the plan of run " + waiting);
    assertThat(get(stack, waiting).get("status").asText()).isEqualTo("planned");
    CliResult approved = stack.cli(dir, "runs", "approve", waiting, "-digest=" + digest);
    assertThat(approved.exitCode()).as(approved.all()).isZero();
    assertThat(awaitStatus(stack, waiting, "applied").get("approvedBy").asText())
        .isEqualTo("admin@dev");
    assertThat(stack.cli(dir, "runs", "show", waiting).out())
        .contains("approved:    by admin@dev at 20");

    String unwanted = startRun(stack, ws, "api-2");
    awaitStatus(stack, unwanted, "planned");
    CliResult discarded = stack.cli(dir, "runs", "discard", unwanted);
    assertThat(discarded.exitCode()).as(discarded.all()).isZero();
    assertThat(get(stack, unwanted).get("status").asText()).isEqualTo("discarded");
    CliResult late = stack.cli(dir, "runs", "approve", unwanted);
    assertThat(late.exitCode()).isEqualTo(1);
    assertThat(late.err()).contains("is not waiting for approval (it is discarded)");
    assertThat(Files.readAllLines(log)).containsExactly("applied r1", "applied r2");

    // with auto-apply on again, apply does not wait and approves nothing
    CliResult tooMany = stack.cli(dir, "workspaces", "set", ws, "-parallelism=0");
    assertThat(tooMany.exitCode()).isEqualTo(1);
    assertThat(tooMany.err()).contains("parallelism");
    CliResult set = stack.cli(dir, "workspaces", "set", ws, "-auto-apply=true");
    assertThat(set.exitCode()).as(set.all()).isZero();
    assertThat(set.out()).contains("auto-apply:  true").contains("parallelism: 10");
    CliResult atOnce =
        stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve", "-var", "rev=r3");
    assertThat(atOnce.exitCode()).as(atOnce.all()).isZero();
    assertThat(atOnce.out()).doesNotContain("Approved plan");
    assertThat(Files.readAllLines(log)).containsExactly("applied r1", "applied r2", "applied r3");
    assertThat(newestRun(stack, ws).get("approvedBy").isNull()).isTrue();
  }

  private static JsonNode newestRun(SharedStack stack, String ws) throws Exception {
    JsonNode runs = JSON.readTree(call(stack, "GET", "/api/v1/runs?workspace=" + ws, null).body());
    JsonNode list = runs.isArray() ? runs : runs.path("runs");
    return get(stack, list.get(0).get("id").asText());
  }
}
