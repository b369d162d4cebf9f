package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A {@code moved} block on the real stack (issue 29 item 9): a renamed resource keeps its object,
 * its provisioner does not run again, the state holds it at its new address, and once the move is
 * applied the moved block can go with no change planned; adding {@code count} moves the instance to
 * {@code [0]} (Terraform's implied move) and only the new instance is provisioned.
 */
class MovedBlocksEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void aRenameMovesTheObjectInStateWithoutProvisioningItAgain() throws Exception {
    Path log = stack.shared.resolve("moved-blocks.log");
    String ws = "-workspace=moved-blocks";
    Path dir = stack.configDir("moved-blocks", resource("old", "") + "\n");
    CliResult first = stack.cli(dir, "apply", ws, "-auto-approve");
    assertThat(first.exitCode()).as(first.all()).isZero();
    assertThat(Files.readAllLines(log)).containsExactly("provisioned");
    String id = instanceIds(ws).get("null_resource.old");
    assertThat(id).isNotBlank();

    Files.writeString(
        dir.resolve("main.tf"),
        resource("web", "")
            + "\nmoved {\n  from = null_resource.old\n  to   = null_resource.web\n}\n");
    CliResult moved = stack.cli(dir, "apply", ws, "-auto-approve");
    assertThat(moved.exitCode()).as(moved.all()).isZero();
    assertThat(moved.out())
        .contains("# null_resource.old has moved to null_resource.web")
        .contains("Plan: 0 to add, 0 to change, 0 to destroy.");
    assertThat(Files.readAllLines(log)).as("not provisioned again").containsExactly("provisioned");
    assertThat(instanceIds(ws)).containsOnlyKeys("null_resource.web");
    assertThat(instanceIds(ws).get("null_resource.web")).as("the same object").isEqualTo(id);

    Files.writeString(dir.resolve("main.tf"), resource("web", "") + "\n");
    CliResult after = stack.cli(dir, "plan", ws);
    assertThat(after.exitCode()).as(after.all()).isZero();
    assertThat(after.out()).contains("No changes.");

    Files.writeString(dir.resolve("main.tf"), resource("web", "count = 2") + "\n");
    CliResult counted = stack.cli(dir, "apply", ws, "-auto-approve");
    assertThat(counted.exitCode()).as(counted.all()).isZero();
    assertThat(counted.out())
        .contains("# null_resource.web has moved to null_resource.web[0]")
        .contains("Plan: 1 to add, 0 to change, 0 to destroy.");
    assertThat(Files.readAllLines(log)).containsExactly("provisioned", "provisioned");
    assertThat(instanceIds(ws)).containsOnlyKeys("null_resource.web[0]", "null_resource.web[1]");
    assertThat(instanceIds(ws).get("null_resource.web[0]")).isEqualTo(id);
  }

  private String resource(String name, String meta) {
    return """
        resource "null_resource" "%s" {
          %s
          triggers = { v = "1" }
          provisioner "local-exec" {
            command = "echo provisioned >> %s"
          }
        }
        """
        .formatted(name, meta, stack.shared.resolve("moved-blocks.log"));
  }

  /** Instance address → id, from the pulled v4 state. */
  private java.util.Map<String, String> instanceIds(String ws) throws Exception {
    CliResult pulled = stack.cli(stack.root, "state", "pull", ws);
    assertThat(pulled.exitCode()).as(pulled.all()).isZero();
    JsonNode state = JSON.readTree(pulled.out());
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (JsonNode r : state.path("resources")) {
      for (JsonNode i : r.path("instances")) {
        JsonNode key = i.get("index_key");
        String suffix =
            key == null
                ? ""
                : key.isNumber() ? "[" + key.asInt() + "]" : "[\"" + key.asText() + "\"]";
        out.put(
            r.path("type").asText() + "." + r.path("name").asText() + suffix,
            i.path("attributes").path("id").asText());
      }
    }
    return out;
  }
}
