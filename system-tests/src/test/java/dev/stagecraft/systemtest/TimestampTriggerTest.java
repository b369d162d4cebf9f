package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code triggers = { always = timestamp() }} runs its provisioner at every apply, through the CLI,
 * the planner and the executor: the plan shows the trigger {@code (known after apply)}, and state
 * holds the RFC 3339 timestamp the apply evaluated, the very one the provisioner printed.
 */
class TimestampTriggerTest {

  @Test
  void twoAppliesOfATimestampTriggerBothRunTheProvisionerAndStoreTheTimestamp() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "timestamp-" + UUID.randomUUID().toString().substring(0, 8);
    Path log = stack.shared.resolve(ws + ".log");
    Path dir =
        stack.configDir(
            ws,
            """
            resource "null_resource" "always" {
              triggers = { always = timestamp() }
              provisioner "local-exec" {
                command = "echo ${self.triggers.always} >> %s"
              }
            }
            """
                .formatted(log));

    CliResult first = stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve");
    assertThat(first.exitCode()).as(first.all()).isZero();
    assertThat(first.out()).contains("Plan: 1 to add").contains("(known after apply)");
    String stored = storedTimestamp(stack, dir, ws);
    assertThat(Files.readAllLines(log)).containsExactly(stored);

    CliResult second = stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve");
    assertThat(second.exitCode()).as(second.all()).isZero();
    assertThat(second.out())
        .contains("must be replaced")
        .contains("-> (known after apply) # forces replacement")
        .contains("Plan: 1 to add, 0 to change, 1 to destroy.");
    String again = storedTimestamp(stack, dir, ws);
    List<String> ran = Files.readAllLines(log);
    assertThat(ran).containsExactly(stored, again);
    assertThat(Instant.parse(again)).isAfterOrEqualTo(Instant.parse(stored));
  }

  /** The trigger in state: an RFC 3339 timestamp in UTC, to the second. */
  private static String storedTimestamp(SharedStack stack, Path dir, String ws) throws Exception {
    JsonNode state =
        new ObjectMapper().readTree(stack.cli(dir, "state", "pull", "-workspace=" + ws).out());
    String value = state.at("/resources/0/instances/0/attributes/triggers/always").asText();
    assertThat(value).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
    return value;
  }
}
