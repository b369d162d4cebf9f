package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File functions in a variable's {@code validation} read relative to the configuration directory,
 * like everywhere else (issue 29 item 4), confined to it on a server.
 */
class ValidationFilesTest {
  @TempDir Path dir;

  private static final String CONFIG =
      """
      variable "env" {
        validation {
          condition     = contains(split("\\n", trimspace(file("${path.module}/envs.txt"))), var.env)
          error_message = "The env must be one of ${trimspace(file("envs.txt"))}."
        }
      }
      resource "stateful_provisioning" "app" { state_key = var.env }
      """;

  private PlanResult plan(String env, boolean confined) {
    return Planner.plan(
        new PlanRequest(
            "default",
            Map.of("main.tf", CONFIG),
            Map.of("env", env),
            List.of(),
            false,
            dir,
            confined),
        PriorState.empty());
  }

  @Test
  void aValidationReadsTheConfigurationsFilesOnTheCliAndOnTheServer() throws Exception {
    Files.writeString(dir.resolve("envs.txt"), "staging\nprod\n");
    for (boolean confined : List.of(false, true)) {
      PlanResult ok = plan("prod", confined);
      assertThat(ok.hasErrors()).as(ok.renderDiagnostics()).isFalse();

      PlanResult refused = plan("dev", confined);
      assertThat(refused.diagnostics().errors())
          .extracting(d -> d.summary() + ": " + d.detail())
          .singleElement()
          .asString()
          .startsWith("Invalid value for variable: The env must be one of staging\nprod.");
    }
  }
}
