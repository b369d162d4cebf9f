package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code plan -out=FILE} then {@code apply FILE}: exactly that plan, or a refusal when stale. */
class SavedPlanTest {
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  static String config(Path log) {
    return """
        variable "rev" {
        }
        variable "password" {
          sensitive = true
        }
        resource "stateful_provisioning" "app" {
          state_key = var.rev
          provisioner "local-exec" {
            command = "echo applied ${var.rev} >> %s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void appliesASavedPlanAndRefusesItOnceTheStateMoved() throws Exception {
    Path log = stack.shared.resolve("saved-plan.log");
    Path dir = stack.configDir("saved-plan", config(log));
    String ws = "-workspace=saved";

    CliResult planned =
        stack.cli(dir, "plan", ws, "-var", "rev=r1", "-var", "password=hunter2", "-out=r1.plan");
    assertThat(planned.exitCode()).as(planned.all()).isZero();
    assertThat(planned.out()).contains("Saved the plan to: r1.plan");
    String saved = Files.readString(dir.resolve("r1.plan"));
    assertThat(saved).doesNotContain("hunter2");

    CliResult withoutSecret = stack.cli(dir, "apply", ws, "r1.plan");
    assertThat(withoutSecret.exitCode()).isEqualTo(1);
    assertThat(withoutSecret.err()).contains("TF_VAR_password");
    assertThat(Files.exists(log)).isFalse();

    // another value than the plan was made with: refused before anything is sent
    CliResult otherSecret =
        stack.cliWith(
            dir, java.util.Map.of("TF_VAR_password", "hunter3"), null, "apply", ws, "r1.plan");
    assertThat(otherSecret.exitCode()).isEqualTo(1);
    assertThat(otherSecret.err())
        .contains("sensitive variable \"password\" is not the one the plan was made with")
        .doesNotContain("hunter");
    assertThat(Files.exists(log)).isFalse();

    CliResult applied =
        stack.cliWith(
            dir, java.util.Map.of("TF_VAR_password", "hunter2"), null, "apply", ws, "r1.plan");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(Files.readAllLines(log)).containsExactly("applied r1");

    CliResult second =
        stack.cli(dir, "plan", ws, "-var", "rev=r2", "-var", "password=x", "-out=r2.plan");
    assertThat(second.exitCode()).as(second.all()).isZero();
    CliResult moved =
        stack.cli(dir, "apply", ws, "-auto-approve", "-var", "rev=r3", "-var", "password=x");
    assertThat(moved.exitCode()).as(moved.all()).isZero();

    CliResult stale =
        stack.cliWith(dir, java.util.Map.of("TF_VAR_password", "x"), null, "apply", ws, "r2.plan");
    assertThat(stale.exitCode()).isEqualTo(1);
    assertThat(stale.err())
        .contains("stale")
        .as("which changes differ, not only the digests (docs/adr/0074)")
        .contains("What differs from the saved plan:\n  state: planned against serial ");
    assertThat(Files.readAllLines(log)).containsExactly("applied r1", "applied r3");
  }
}
