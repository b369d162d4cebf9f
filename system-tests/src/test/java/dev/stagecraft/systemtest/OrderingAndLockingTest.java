package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Dependencies order the work; the workspace lock serializes whole runs. */
class OrderingAndLockingTest {
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  /** A command that records its start and end time (ns) with a label, and takes a moment. */
  static String timed(Path log, String label) {
    return "echo \\\"start "
        + label
        + " $(date +%s%N)\\\" >> "
        + log
        + " && sleep 1 && echo \\\"end "
        + label
        + " $(date +%s%N)\\\" >> "
        + log;
  }

  static long at(List<String> lines, String event) {
    return lines.stream()
        .filter(l -> l.startsWith(event + " "))
        .map(l -> Long.parseLong(l.substring(event.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no '" + event + "' in " + lines));
  }

  @Test
  void theDependentsCommandStartsOnlyAfterItsDependencyFinished() throws Exception {
    Path log = stack.shared.resolve("order.log");
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          depends_on = [stateful_provisioning.db]
          provisioner "local-exec" {
            command = "%s"
          }
        }
        resource "stateful_provisioning" "db" {
          state_key = "v1"
          provisioner "local-exec" {
            command = "%s"
          }
        }
        """
            .formatted(timed(log, "app"), timed(log, "db"));
    Path dir = stack.configDir("ordering", config);
    CliResult result = stack.cli(dir, "apply", "-workspace=ordering", "-auto-approve");
    assertThat(result.exitCode()).as(result.all()).isZero();
    List<String> lines = Files.readAllLines(log);
    assertThat(at(lines, "start app")).isGreaterThanOrEqualTo(at(lines, "end db"));
  }

  @Test
  void aSecondApplyOnTheSameWorkspaceWaitsForTheFirstInsteadOfInterleaving() throws Exception {
    Path log = stack.shared.resolve("lock.log");
    Path first =
        stack.configDir(
            "lock-a",
            """
            resource "stateful_provisioning" "one" {
              state_key = "a"
              provisioner "local-exec" {
                command = "%s"
              }
            }
            """
                .formatted(timed(log, "a")));
    Path second =
        stack.configDir(
            "lock-b",
            """
            resource "stateful_provisioning" "one" {
              state_key = "b"
              provisioner "local-exec" {
                command = "%s"
              }
            }
            """
                .formatted(timed(log, "b")));
    CompletableFuture<CliResult> a =
        CompletableFuture.supplyAsync(
            () -> stack.cli(first, "apply", "-workspace=locked", "-auto-approve"));
    CompletableFuture<CliResult> b =
        CompletableFuture.supplyAsync(
            () -> stack.cli(second, "apply", "-workspace=locked", "-auto-approve"));
    CliResult ra = a.get();
    CliResult rb = b.get();
    assertThat(ra.exitCode()).as(ra.all()).isZero();
    assertThat(rb.exitCode()).as(rb.all()).isZero();
    List<String> lines = Files.readAllLines(log);
    long aStart = at(lines, "start a");
    long aEnd = at(lines, "end a");
    long bStart = at(lines, "start b");
    long bEnd = at(lines, "end b");
    // whichever ran first, the other one's command ran entirely after it
    assertThat(aEnd <= bStart || bEnd <= aStart).as(String.join("\n", lines)).isTrue();
    assertThat(ra.out() + rb.out()).contains("Waiting for the workspace lock");
  }
}
