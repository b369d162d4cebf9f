package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad configuration: exit 1, file:line:col in the message, nothing applied, state unchanged. */
class BadInputTest {
  static SharedStack stack;
  static Path marker;
  static String baseline;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    marker = stack.shared.resolve("bad-input-ran.txt");
    Path dir =
        stack.configDir(
            "bad-baseline",
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
            }
            """);
    CliResult ok = stack.cli(dir, "apply", "-workspace=bad", "-auto-approve");
    assertThat(ok.exitCode()).as(ok.all()).isZero();
    baseline = stack.cli(dir, "state", "pull", "-workspace=bad").out();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "syntax error|resource \"stateful_provisioning\" \"app\" {\\n  state_key = \"v2\"\\n  provisioner \"local-exec\" {\\n    command = \"touch MARKER\"\\n|main.tf:",
        "undefined variable|resource \"stateful_provisioning\" \"app\" {\\n  state_key = var.missing\\n  provisioner \"local-exec\" {\\n    command = \"touch MARKER\"\\n  }\\n}\\n|main.tf:2:15",
        "undeclared resource|resource \"stateful_provisioning\" \"app\" {\\n  state_key = stateful_provisioning.ghost.id\\n  provisioner \"local-exec\" {\\n    command = \"touch MARKER\"\\n  }\\n}\\n|main.tf:2:15",
        "dependency cycle|resource \"stateful_provisioning\" \"app\" {\\n  state_key = stateful_provisioning.b.id\\n  provisioner \"local-exec\" {\\n    command = \"touch MARKER\"\\n  }\\n}\\nresource \"stateful_provisioning\" \"b\" {\\n  state_key = stateful_provisioning.app.id\\n}\\n|main.tf:1:1"
      })
  void isRejectedWithItsPositionAndChangesNothing(String name, String config, String position)
      throws Exception {
    Path dir =
        stack.configDir(
            "bad-" + name.replace(' ', '-'),
            config.replace("\\n", "\n").replace("MARKER", marker.toString()));
    for (String command : new String[] {"validate", "plan", "apply"}) {
      CliResult result =
          command.equals("apply")
              ? stack.cli(dir, "apply", "-workspace=bad", "-auto-approve")
              : command.equals("plan")
                  ? stack.cli(dir, "plan", "-workspace=bad")
                  : stack.cli(dir, "validate");
      assertThat(result.exitCode()).as(command + ": " + result.all()).isEqualTo(1);
      assertThat(result.err()).as(command).contains("Error:").contains(position);
    }
    assertThat(Files.exists(marker)).isFalse();
    assertThat(stack.cli(dir, "state", "pull", "-workspace=bad").out()).isEqualTo(baseline);
  }

  @Test
  void aRequestWithoutAValidTokenIsRejected() throws Exception {
    java.net.http.HttpResponse<String> response =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(stack.plannerUrl() + "/api/v1/runs"))
                    .header("Authorization", "Bearer sc_not-a-token")
                    .GET()
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
  }
}
