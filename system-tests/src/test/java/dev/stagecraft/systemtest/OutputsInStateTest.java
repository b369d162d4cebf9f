package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run records the configuration's root outputs in the workspace's state (docs/planning.md
 * "Outputs in state", ADR 0064), over the real stack and the CLI: workspace A applied through
 * Stagecraft has its outputs in {@code state pull} (the sensitive one sealed and marked), workspace
 * B reads them with {@code data "terraform_remote_state"} and plans and applies with them (the
 * sealed one opened), an output removed from A's configuration is gone after the next apply — an
 * output-only change, applied without touching any resource —, and a destroy removes them all.
 */
class OutputsInStateTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String secret = "db-pw-" + suffix;
  private final String network = "outs-net-" + suffix;

  private static String networkConfig(boolean withTemp) {
    return """
        variable "db_password" {
          type      = string
          sensitive = true
        }
        resource "terraform_data" "vpc" {
          input = "vpc-%s"
        }
        output "vpc_id" {
          value = terraform_data.vpc.output
        }
        output "replicas" {
          value = 2
        }
        output "subnets" {
          value = { a = "10.0.1.0/24", b = "10.0.2.0/24" }
        }
        output "db_password" {
          value     = var.db_password
          sensitive = true
        }
        """
            .formatted("SUFFIX")
        + (withTemp ? "output \"temp\" {\n  value = [terraform_data.vpc.id, 1]\n}\n" : "");
  }

  @Test
  void aRunsOutputsAreInItsStateAndAnotherWorkspaceReadsThem() throws Exception {
    Path netDir =
        stack.configDir("outs-net-" + suffix, networkConfig(true).replace("SUFFIX", suffix));
    String netWs = "-workspace=" + network;
    Map<String, String> pw = Map.of("TF_VAR_db_password", secret);

    CliResult applied = stack.cliWith(netDir, pw, null, "apply", netWs, "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(applied.all()).contains("Apply complete!").doesNotContain(secret);

    JsonNode state = pull(network);
    JsonNode outputs = state.path("outputs");
    assertThat(names(outputs))
        .containsExactly("db_password", "replicas", "subnets", "temp", "vpc_id");
    assertThat(outputs.at("/vpc_id/value").asText()).isEqualTo("vpc-" + suffix);
    assertThat(outputs.at("/vpc_id/type").asText()).isEqualTo("string");
    assertThat(outputs.at("/vpc_id/sensitive").asBoolean()).isFalse();
    assertThat(outputs.at("/replicas/value").asInt()).isEqualTo(2);
    assertThat(outputs.at("/replicas/type").asText()).isEqualTo("number");
    assertThat(outputs.at("/subnets/type").toString())
        .isEqualTo("[\"object\",{\"a\":\"string\",\"b\":\"string\"}]");
    assertThat(outputs.at("/temp/type").toString())
        .isEqualTo("[\"tuple\",[\"string\",\"number\"]]");
    // the sensitive output is marked and sealed, never in clear in the state document
    assertThat(outputs.at("/db_password/sensitive").asBoolean()).isTrue();
    String sealed = outputs.at("/db_password/value").asText();
    assertThat(sealed).startsWith("stagecraft:sealed:v1:");
    assertThat(state.toString()).doesNotContain(secret);
    long serialAfterFirst = state.path("serial").asLong();

    // workspace B reads A's outputs by name; the sealed one is opened for its plan and apply
    Path appDir =
        stack.configDir(
            "outs-app-" + suffix,
            """
            variable "expected_pw" {
              type      = string
              sensitive = true
            }
            data "terraform_remote_state" "net" {
              backend = "stagecraft"
              config  = { workspace = "%s" }
            }
            resource "terraform_data" "app" {
              count = data.terraform_remote_state.net.outputs.replicas
              input = "${data.terraform_remote_state.net.outputs.vpc_id}/${count.index}"
              lifecycle {
                precondition {
                  condition     = data.terraform_remote_state.net.outputs.db_password == var.expected_pw
                  error_message = "The network's database password did not reach this workspace."
                }
              }
            }
            """
                .formatted(network));
    String appWs = "-workspace=outs-app-" + suffix;
    Map<String, String> expected = Map.of("TF_VAR_expected_pw", secret);
    CliResult plan = stack.cliWith(appDir, expected, null, "plan", appWs);
    assertThat(plan.exitCode()).as(plan.all()).isZero();
    assertThat(plan.out())
        .contains("terraform_data.app[1]")
        .contains("vpc-" + suffix + "/0")
        .doesNotContain(secret);
    CliResult appApplied = stack.cliWith(appDir, expected, null, "apply", appWs, "-auto-approve");
    assertThat(appApplied.exitCode()).as(appApplied.all()).isZero();
    assertThat(appApplied.all()).doesNotContain(secret);
    List<String> inputs =
        pull("outs-app-" + suffix).path("resources").findValues("input").stream()
            .map(JsonNode::asText)
            .sorted()
            .toList();
    assertThat(inputs).containsExactly("vpc-" + suffix + "/0", "vpc-" + suffix + "/1");

    // an output removed from A's configuration: an output-only change, applied, and gone
    Files.writeString(netDir.resolve("main.tf"), networkConfig(false).replace("SUFFIX", suffix));
    CliResult removed = stack.cliWith(netDir, pw, null, "apply", netWs, "-auto-approve");
    assertThat(removed.exitCode()).as(removed.all()).isZero();
    assertThat(removed.all())
        .contains("- temp")
        .contains("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    JsonNode after = pull(network);
    assertThat(names(after.path("outputs")))
        .containsExactly("db_password", "replicas", "subnets", "vpc_id");
    assertThat(after.path("serial").asLong()).isEqualTo(serialAfterFirst + 1);
    // the unchanged secret kept its sealed string: no change recorded for it
    assertThat(after.at("/outputs/db_password/value").asText()).isEqualTo(sealed);

    // nothing changed: nothing applied, nothing recorded
    CliResult again = stack.cliWith(netDir, pw, null, "apply", netWs, "-auto-approve");
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.all()).contains("No changes.");
    assertThat(pull(network).path("serial").asLong()).isEqualTo(serialAfterFirst + 1);

    // a destroy removes every output
    CliResult destroyed = stack.cliWith(netDir, pw, null, "destroy", netWs, "-auto-approve");
    assertThat(destroyed.exitCode()).as(destroyed.all()).isZero();
    JsonNode gone = pull(network);
    assertThat(gone.path("outputs").size()).as(gone.toString()).isZero();
    assertThat(gone.path("resources").size()).isZero();
  }

  private static JsonNode pull(String ws) throws Exception {
    CliResult pulled = stack.cli(stack.root, "state", "pull", "-workspace=" + ws);
    assertThat(pulled.exitCode()).as(pulled.all()).isZero();
    return JSON.readTree(pulled.out());
  }

  private static List<String> names(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    return out.stream().sorted().toList();
  }
}
