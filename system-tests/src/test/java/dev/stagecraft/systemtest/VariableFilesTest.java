package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A variable without a type takes the type of its value from {@code terraform.tfvars}, through the
 * CLI, the REST API and the planner service, applied now and from a saved plan: {@code nodes =
 * ["a", "b"]} is a list of two nodes (it once arrived as a string of nine characters).
 */
class VariableFilesTest {
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void anUntypedListFromTerraformTfvarsIsAListOnTheServer() throws Exception {
    Path log = stack.shared.resolve("variable-files.log");
    Path dir =
        stack.configDir(
            "variable-files",
            """
            variable "nodes" {}
            resource "stateful_provisioning" "node" {
              count     = length(var.nodes)
              state_key = var.nodes[count.index]
              provisioner "local-exec" {
                command = "echo ${var.nodes[count.index]} >> %s"
              }
            }
            """
                .formatted(log));
    Files.writeString(dir.resolve("terraform.tfvars"), "nodes = [\"a\", \"b\"]\n");

    CliResult applied = stack.cli(dir, "apply", "-workspace=variable-files", "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(applied.out()).contains("Plan: 2 to add");
    assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("a", "b");

    // a saved plan sends the same request: the values stay HCL
    CliResult saved = stack.cli(dir, "plan", "-workspace=variable-files-saved", "-out=nodes.plan");
    assertThat(saved.exitCode()).as(saved.all()).isZero();
    assertThat(saved.out()).contains("Plan: 2 to add");
    CliResult fromPlan = stack.cli(dir, "apply", "-workspace=variable-files-saved", "nodes.plan");
    assertThat(fromPlan.exitCode()).as(fromPlan.all()).isZero();
    assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("a", "b", "a", "b");
  }
}
