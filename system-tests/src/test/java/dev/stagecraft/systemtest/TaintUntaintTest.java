package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code stagecraft taint} / {@code untaint} through the CLI against the real stack: a tainted
 * instance is planned for replacement and replaced by the next apply; untaint takes that back;
 * unknown addresses, untainting an untainted instance and reader tokens are refused.
 */
class TaintUntaintTest {
  static final String APP = "stateful_provisioning.app";
  static final ObjectMapper JSON = new ObjectMapper();
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void aTaintedInstanceIsPlannedForReplacementUntilItIsUntainted() throws Exception {
    Path deployed = stack.shared.resolve("taint-deployed.txt");
    Path dir = stack.configDir("taint", SeedExampleLifecycleTest.config(deployed));
    String ws = "-workspace=taint";
    String var = "revision_to_deploy=r1";
    CliResult applied = stack.cli(dir, "apply", ws, "-auto-approve", "-var", var);
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    long serialAfterApply = pull(ws).get("serial").asLong();

    CliResult tainted = stack.cli(dir, "taint", ws, APP);
    assertThat(tainted.exitCode()).as(tainted.all()).isZero();
    assertThat(tainted.out())
        .isEqualTo("Resource instance " + APP + " has been marked as tainted.\n");
    assertThat(pull(ws).get("resources").get(0).get("instances").get(0).get("status").asText())
        .isEqualTo("tainted");
    assertThat(pull(ws).get("serial").asLong()).isEqualTo(serialAfterApply + 1);
    CliResult replacing = stack.cli(dir, "plan", ws, "-detailed-exitcode", "-var", var);
    assertThat(replacing.exitCode()).as(replacing.all()).isEqualTo(2);
    assertThat(replacing.out()).contains(APP + " is tainted, so must be replaced");

    CliResult untainted = stack.cli(dir, "untaint", ws, APP);
    assertThat(untainted.exitCode()).as(untainted.all()).isZero();
    assertThat(untainted.out())
        .isEqualTo("Resource instance " + APP + " has been successfully untainted.\n");
    CliResult unchanged = stack.cli(dir, "plan", ws, "-detailed-exitcode", "-var", var);
    assertThat(unchanged.exitCode()).as(unchanged.all()).isZero();
    assertThat(unchanged.out()).contains("No changes.");

    CliResult again = stack.cli(dir, "untaint", ws, APP);
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err()).contains("Resource instance " + APP + " is not currently tainted");

    CliResult unknown = stack.cli(dir, "taint", ws, "stateful_provisioning.nope");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("No such resource instance: stateful_provisioning.nope");

    // the mark is what the next apply acts on: the provisioner runs again, the mark is gone
    assertThat(stack.cli(dir, "taint", ws, APP).exitCode()).isZero();
    CliResult replaced = stack.cli(dir, "apply", ws, "-auto-approve", "-var", var);
    assertThat(replaced.exitCode()).as(replaced.all()).isZero();
    assertThat(Files.readAllLines(deployed)).containsExactly("deployed r1", "deployed r1");
    assertThat(pull(ws).get("resources").get(0).get("instances").get(0).has("status")).isFalse();
  }

  @Test
  void aReaderTokenCannotTaint() throws Exception {
    Path dir = stack.configDir("taint-reader", "");
    String reader = readerToken();

    CliResult refused =
        stack.cliWith(
            dir,
            Map.of("STAGECRAFT_ADDR", stack.plannerUrl(), "STAGECRAFT_TOKEN", reader),
            null,
            "taint",
            "-workspace=taint-reader",
            APP);

    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err()).contains("reader token cannot change state");
  }

  private static JsonNode pull(String workspaceFlag) throws Exception {
    CliResult pulled = stack.cli(stack.root, "state", "pull", workspaceFlag);
    assertThat(pulled.exitCode()).as(pulled.all()).isZero();
    return JSON.readTree(pulled.out());
  }

  /** A reader token of the dev tenant, made through the state service's internal API. */
  private static String readerToken() throws Exception {
    String operatorToken = stack.serviceToken(ServiceRole.OPERATOR);
    String tenant = stack.stack().credentials().orElseThrow().tenant();
    HttpResponse<String> created =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            stack.stack().info().state()
                                + "/internal/v1/tenants/"
                                + tenant
                                + "/tokens"))
                    .header("Authorization", "Bearer " + operatorToken)
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"role\":\"reader\",\"description\":\"taint test\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return JSON.readTree(created.body()).get("token").asText();
  }
}
