package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's example, with local-exec appending the revision to a file: the provisioners run when
 * the state key changes, and only then; deleting the resource runs nothing and leaves state.
 */
class SeedExampleLifecycleTest {
  static SharedStack stack;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  static String config(Path deployed) {
    return """
        variable "revision_to_deploy" {
        }

        resource "stateful_provisioning" "app" {
          # Run deployment steps whenever the revision_to_deploy changes.
          state_key = "${var.revision_to_deploy}"

          provisioner "local-exec" {
            command = "echo deployed ${var.revision_to_deploy} >> %s"
          }
        }
        """
        .formatted(deployed);
  }

  @Test
  void provisionersRunOnlyWhenTheStateKeyChangesAndDeletingLeavesOnlyState() throws Exception {
    Path deployed = stack.shared.resolve("seed-deployed.txt");
    Path dir = stack.configDir("seed", config(deployed));
    String ws = "-workspace=seed";

    CliResult first = stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    assertThat(first.out())
        .contains("stateful_provisioning.app will be created")
        .contains("stateful_provisioning.app: Creating...")
        .contains("Apply complete!");
    assertThat(Files.readAllLines(deployed)).containsExactly("deployed r1");
    long serialAfterCreate = serial(ws);

    CliResult unchanged =
        stack.cli(dir, "plan", ws, "-detailed-exitcode", "-var", "revision_to_deploy=r1");
    assertThat(unchanged.exitCode()).as(unchanged.all()).isZero();
    assertThat(unchanged.out()).contains("No changes.");
    CliResult noop = stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r1");
    assertThat(noop.exitCode()).as(noop.all()).isZero();
    assertThat(Files.readAllLines(deployed)).containsExactly("deployed r1");
    assertThat(serial(ws)).isEqualTo(serialAfterCreate);

    CliResult changed =
        stack.cli(dir, "plan", ws, "-detailed-exitcode", "-var", "revision_to_deploy=r2");
    assertThat(changed.exitCode()).as(changed.all()).isEqualTo(2);
    assertThat(changed.out()).contains("must be replaced").contains("\"r1\" -> \"r2\"");
    CliResult replace =
        stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r2");
    assertThat(replace.exitCode()).as(replace.all()).isZero();
    assertThat(Files.readAllLines(deployed)).containsExactly("deployed r1", "deployed r2");

    JsonNode state = pull(ws);
    assertThat(state.get("version").asInt()).isEqualTo(4);
    JsonNode instance = state.get("resources").get(0).get("instances").get(0);
    assertThat(instance.get("attributes").get("state_key").asText()).isEqualTo("r2");
    assertThat(state.get("serial").asLong()).isGreaterThan(serialAfterCreate);
    assertThat(stack.cli(dir, "state", "list", ws).out().lines().toList())
        .containsExactly("stateful_provisioning.app");
    assertThat(stack.cli(dir, "state", "show", ws, "stateful_provisioning.app").out())
        .contains("state_key = \"r2\"");

    long beforeRemoval = serial(ws);
    Files.writeString(dir.resolve("main.tf"), "variable \"revision_to_deploy\" {\n}\n");
    CliResult removed =
        stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r2");
    assertThat(removed.exitCode()).as(removed.all()).isZero();
    assertThat(removed.out()).contains("will be destroyed");
    assertThat(Files.readAllLines(deployed)).containsExactly("deployed r1", "deployed r2");
    assertThat(stack.cli(dir, "state", "list", ws).out()).isBlank();
    assertThat(serial(ws)).isGreaterThan(beforeRemoval);
  }

  static JsonNode pull(String workspaceFlag) throws Exception {
    CliResult pulled = stack.cli(stack.root, "state", "pull", workspaceFlag);
    assertThat(pulled.exitCode()).as(pulled.all()).isZero();
    return JSON.readTree(pulled.out());
  }

  static long serial(String workspaceFlag) throws Exception {
    return pull(workspaceFlag).get("serial").asLong();
  }

  static List<String> lines(Path file) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }
}
