package dev.stagecraft.systemtest;

import static dev.stagecraft.systemtest.RunLogEvents.isLog;
import static dev.stagecraft.systemtest.RunLogEvents.next;
import static dev.stagecraft.systemtest.RunLogEvents.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.systemtest.RunLogEvents.Sse;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Run logs over Server-Sent Events ({@code GET /api/v1/runs/{id}/logs}) read with a plain HTTP
 * client, and the CLI's {@code runs list|show|logs -follow} and Ctrl-C during {@code apply},
 * against the real stack. Each run waits at a gate (a file the test creates) so "mid-run" is a
 * state the test controls, not a timing.
 */
class RunLogsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** One SSE event as received. */
  @Test
  void reconnectingWithLastEventIdGetsExactlyTheMissedEventsAndTheStreamEndsAfterTheRun()
      throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "sse-" + UUID.randomUUID().toString().substring(0, 8);
    Path gate = stack.shared.resolve(ws + ".gate");
    Path waiting = stack.shared.resolve(ws + ".waiting");
    String runId = startRun(stack, ws, gatedChain(gate, waiting));

    // first connection: read until the gated step said it waits, then drop the connection
    List<Sse> first = new ArrayList<>();
    try (Stream<String> lines = RunLogEvents.open(stack.plannerUrl(), stack.token(), runId, null)) {
      Iterator<String> it = lines.iterator();
      Sse event;
      do {
        event = next(it);
        assertThat(event).as("the stream must not end while the run waits at its gate").isNotNull();
        first.add(event);
      } while (!isLog(event, "gate-waiting"));
    }
    assertThat(first).extracting(Sse::id).doesNotHaveDuplicates().isSorted();

    Files.writeString(gate, "open");
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> getJson(stack, "/api/v1/runs/" + runId).path("terminal").asBoolean());

    // reconnect after the last id seen: exactly the rest, ending with the terminal transition
    long lastSeen = first.getLast().id();
    List<Sse> rest =
        readAll(
            stack.plannerUrl(),
            stack.token(),
            runId,
            Long.toString(lastSeen),
            Duration.ofSeconds(30));
    assertThat(rest).isNotEmpty();
    assertThat(rest.getFirst().id()).isEqualTo(lastSeen + 1);
    for (int i = 1; i < rest.size(); i++) {
      assertThat(rest.get(i).id()).isEqualTo(rest.get(i - 1).id() + 1);
    }
    assertThat(rest.getLast().name()).isEqualTo("status");
    assertThat(rest.getLast().data().path("status").asText()).isEqualTo("applied");
    assertThat(rest.stream().anyMatch(e -> isLog(e, "gate-open"))).isTrue();
    assertThat(rest.stream().anyMatch(e -> isLog(e, "c-line"))).isTrue();

    // the two halves are exactly the whole journal, read from the start
    List<Sse> whole =
        readAll(stack.plannerUrl(), stack.token(), runId, null, Duration.ofSeconds(30));
    List<Sse> joined = new ArrayList<>(first);
    joined.addAll(rest);
    assertThat(joined).isEqualTo(whole);
    assertThat(whole.getFirst().id()).isEqualTo(1);

    // resuming after the terminal transition: nothing more, the stream ends at once
    assertThat(
            readAll(
                stack.plannerUrl(),
                stack.token(),
                runId,
                Long.toString(whole.getLast().id()),
                Duration.ofSeconds(30)))
        .isEmpty();

    // another tenant sees no such run
    String other = tokenForNewTenant(stack, "sse-other-" + ws, "deployer");
    HttpResponse<String> foreign =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create(stack.plannerUrl() + "/api/v1/runs/" + runId + "/logs"))
                .header("Authorization", "Bearer " + other)
                .header("Accept", "text/event-stream")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(404);
    assertThat(foreign.body()).doesNotContain("gate").doesNotContain(ws);
  }

  @Test
  void runsListShowAndLogsFollowShowTheTenantsRuns() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "runs-" + UUID.randomUUID().toString().substring(0, 8);
    Path gate = stack.shared.resolve(ws + ".gate");
    Path waiting = stack.shared.resolve(ws + ".waiting");
    Path dir = stack.configDir(ws, gatedChain(gate, waiting));
    String runId = startRun(stack, ws, gatedChain(gate, waiting));
    await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(waiting));

    CompletableFuture<CliResult> follow =
        CompletableFuture.supplyAsync(() -> stack.cli(dir, "runs", "logs", runId, "-follow"));
    CliResult applying = stack.cli(dir, "runs", "list", "-workspace=" + ws);
    assertThat(applying.exitCode()).as(applying.all()).isZero();
    assertThat(applying.out()).contains(runId).contains("applying");
    CliResult soFar = stack.cli(dir, "runs", "logs", runId);
    assertThat(soFar.out())
        .contains("stateful_provisioning.a (local-exec): a-line-1")
        .contains("add -follow")
        .doesNotContain("(local-exec): gate-open");
    // the run cannot end before the gate opens, so the follower is still reading
    assertThat(follow).isNotDone();

    Files.writeString(gate, "open");
    CliResult followed = follow.get(120, TimeUnit.SECONDS);
    assertThat(followed.exitCode()).as(followed.all()).isZero();
    assertThat(followed.out())
        .contains("stateful_provisioning.a: Creating...")
        .contains("stateful_provisioning.gate (local-exec): gate-waiting")
        .contains("stateful_provisioning.gate (local-exec): gate-open")
        .contains("stateful_provisioning.c (local-exec): c-line")
        .contains("Apply complete!");

    CliResult list = stack.cli(dir, "runs", "list", "-workspace=" + ws, "-status=applied");
    assertThat(list.out())
        .contains(runId)
        .contains("applied")
        .containsPattern(" \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ "); // created, to the second
    CliResult none = stack.cli(dir, "runs", "list", "-workspace=" + ws, "-status=errored");
    assertThat(none.out()).contains("No runs.").doesNotContain(runId);
    CliResult show = stack.cli(dir, "runs", "show", runId);
    assertThat(show.exitCode()).as(show.all()).isZero();
    assertThat(show.out())
        .contains("id:          " + runId)
        .contains("workspace:   " + ws)
        .contains("status:      applied")
        .containsPattern("created:     \\d{4}-\\d\\d-\\d\\dT"); // ISO-8601, not a number
    CliResult missing = stack.cli(dir, "runs", "show", "run-does-not-exist");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).contains("There is no run run-does-not-exist");
  }

  @Test
  void firstCtrlCDuringApplyCancelsTheRunAndKeepsFollowingUntilItEnds() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "ctrlc-" + UUID.randomUUID().toString().substring(0, 8);
    Path gate = stack.shared.resolve(ws + ".gate");
    Path waiting = stack.shared.resolve(ws + ".waiting");
    Path dir = stack.configDir(ws, gatedChain(gate, waiting));
    Path out = stack.root.resolve(ws + ".out");
    // the real CLI in its own JVM, so SIGINT reaches it as a terminal's Ctrl-C would
    ProcessBuilder pb =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElseThrow(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.stagecraft.cli.StagecraftCli",
                "apply",
                "-workspace=" + ws,
                "-auto-approve")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    pb.environment().put("STAGECRAFT_HOME", stack.home.toString());
    pb.environment().put("HOME", stack.root.toString());
    Process cli = pb.start();
    try {
      await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(waiting));
      assertThat(ignoresSigint(cli.pid()))
          .as(
              "the CLI process ignores SIGINT: it inherited that from this test JVM, started with"
                  + " SIGINT ignored (a background job of a shell without job control, e.g. `bash"
                  + " .ci/run &` in a script). Run the tests in the foreground, or with `set -m`")
          .isFalse();
      new ProcessBuilder("kill", "-INT", Long.toString(cli.pid())).start().waitFor();
      assertThat(cli.waitFor(120, TimeUnit.SECONDS)).as(Files.readString(out)).isTrue();
      String printed = Files.readString(out);
      assertThat(cli.exitValue()).as(printed).isEqualTo(1);
      assertThat(printed)
          .contains("Interrupt received. Canceling run ")
          .contains("stateful_provisioning.gate (local-exec): gate-waiting")
          .contains("Canceled: ")
          .doesNotContain("c-line");
      assertThat(gate).doesNotExist();
    } finally {
      cli.destroyForcibly();
      // when the test failed before the cancel took, the run still waits at its gate on the
      // shared stack: let it finish instead of holding an executor slot until the stack stops
      if (!Files.exists(gate)) {
        Files.writeString(gate, "open");
      }
    }
  }

  /** Whether process {@code pid} ignores SIGINT (its {@code SigIgn} mask in /proc). */
  static boolean ignoresSigint(long pid) throws java.io.IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("SigIgn:")) {
        long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16);
        return (mask & (1L << (2 - 1))) != 0; // SIGINT is signal 2
      }
    }
    throw new IllegalStateException("no SigIgn line in /proc/" + pid + "/status");
  }

  /** a → gate (waits for the gate file) → c, each step printing lines. */
  static String gatedChain(Path gate, Path waiting) {
    return """
        resource "stateful_provisioning" "a" {
          state_key = "v1"
          provisioner "local-exec" {
            command = "echo a-line-1; echo a-line-2"
          }
        }
        resource "stateful_provisioning" "gate" {
          state_key  = "v1"
          depends_on = [stateful_provisioning.a]
          provisioner "local-exec" {
            command = "echo gate-waiting; touch %s; while [ ! -f %s ]; do sleep 0.05; done; echo gate-open"
          }
        }
        resource "stateful_provisioning" "c" {
          state_key  = "v1"
          depends_on = [stateful_provisioning.gate]
          provisioner "local-exec" {
            command = "echo c-line"
          }
        }
        """
        .formatted(waiting, gate);
  }

  static String startRun(SharedStack stack, String ws, String mainTf) throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of("workspace", ws, "files", Map.of("main.tf", mainTf), "variables", Map.of()));
    HttpResponse<String> created =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stack.plannerUrl() + "/api/v1/runs"))
                .header("Authorization", "Bearer " + stack.token())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return JSON.readTree(created.body()).get("id").asText();
  }

  private static JsonNode getJson(SharedStack stack, String path) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
                .header("Authorization", "Bearer " + stack.token())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  /** A new tenant and a token of it, through the state service's internal API. */
  static String tokenForNewTenant(SharedStack stack, String tenant, String role) throws Exception {
    String operatorToken = stack.serviceToken(ServiceRole.OPERATOR);
    String stateUrl = stack.stack().info().state();
    HttpResponse<String> t =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stateUrl + "/internal/v1/tenants"))
                .header("Authorization", "Bearer " + operatorToken)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"" + tenant + "\"}", StandardCharsets.UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(t.statusCode()).as(t.body()).isEqualTo(200);
    HttpResponse<String> token =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create(stateUrl + "/internal/v1/tenants/" + tenant + "/tokens"))
                .header("Authorization", "Bearer " + operatorToken)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"role\":\"" + role + "\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(token.statusCode()).as(token.body()).isEqualTo(201);
    return JSON.readTree(token.body()).get("token").asText();
  }
}
