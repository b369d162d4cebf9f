package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A workspace's step timeout bounds every provisioner step without a {@code timeout} of its own: a
 * step that would run for 30 s ends the run after the workspace's 2 s, naming the limit.
 */
class StepTimeoutEndToEndTest {

  @Test
  void aStepWithoutATimeoutOfItsOwnStopsAtTheWorkspacesStepTimeout() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "step-timeout-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir =
        stack.configDir(
            ws,
            """
            resource "terraform_data" "x" {
              provisioner "local-exec" {
                command = "echo started; sleep 30; printf 'ne%s' ver"
              }
            }
            """);

    CliResult tooLong = stack.cli(dir, "workspaces", "create", ws, "-step-timeout=25h");
    assertThat(tooLong.exitCode()).isNotZero();
    assertThat(tooLong.err()).contains("-step-timeout needs a duration from 1s to 24h");
    CliResult created = stack.cli(dir, "workspaces", "create", ws, "-step-timeout=2s");
    assertThat(created.exitCode()).as(created.all()).isZero();
    assertThat(created.out()).contains("step timeout: 2s");

    CliResult apply = stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve");

    assertThat(apply.exitCode()).as(apply.all()).isEqualTo(1);
    assertThat(apply.all())
        .contains("started")
        .contains("step 0 (local-exec) timed out after 2 s (the step timeout")
        .doesNotContain("never");
    CliResult longer = stack.cli(dir, "workspaces", "set", ws, "-step-timeout=30m");
    assertThat(longer.out()).contains("step timeout: 30m");
  }
}
