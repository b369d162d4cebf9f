package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.StackService;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code STAGECRAFT_LOG_FORMAT=json} the services log one JSON object per line, and the
 * executor's lines about a run's action carry the run's tenant, workspace, run and action ids
 * (docs/operations.md "Logs"); a sensitive value the step prints stays out of the log.
 */
class JsonLogsTest {
  private static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.dedicated("json-logs", Map.of("STAGECRAFT_LOG_FORMAT", "json"));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void linesAreJsonAndNameTheRunTheyAreAbout() throws Exception {
    String ws = "json-logs-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = "s3cr3t-" + UUID.randomUUID();
    Path dir =
        stack.configDir(
            ws,
            """
            variable "token" {
              type      = string
              sensitive = true
            }
            resource "terraform_data" "a" {
              provisioner "local-exec" {
                command = "echo token=${var.token}"
              }
            }
            """);
    CliResult applied =
        stack.cliWith(
            dir,
            Map.of("TF_VAR_token", secret),
            null,
            "apply",
            "-workspace=" + ws,
            "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();

    Path executorLog = stack.stack().layout().serviceLog(StackService.EXECUTOR);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              List<JsonNode> lines = jsonLines(executorLog);
              assertThat(lines)
                  .anySatisfy(
                      line -> {
                        assertThat(line.at("/mdc/workspace").asText()).isEqualTo(ws);
                        assertThat(line.at("/mdc/tenant").asText()).isNotEmpty();
                        assertThat(line.at("/mdc/run").asText()).isNotEmpty();
                        assertThat(line.at("/mdc/action").asText()).isNotEmpty();
                        assertThat(line.path("level").asText()).isNotEmpty();
                        assertThat(line.path("formattedMessage").asText()).contains("action");
                      });
            });
    for (StackService service : StackService.values()) {
      Path log = stack.stack().layout().serviceLog(service);
      if (Files.exists(log)) {
        assertThat(jsonLines(log)).as(service.name()).isNotEmpty();
        assertThat(Files.readString(log)).as(service.name()).doesNotContain(secret);
      }
    }
  }

  /** The lines of {@code log} that are JSON objects; a line that starts like one must parse. */
  private static List<JsonNode> jsonLines(Path log) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("{")) {
        lines.add(EventCodec.mapper().readTree(line));
      }
    }
    return lines;
  }
}
