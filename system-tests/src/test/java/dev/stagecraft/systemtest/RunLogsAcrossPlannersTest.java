package dev.stagecraft.systemtest;

import static dev.stagecraft.systemtest.RunLogEvents.isLog;
import static dev.stagecraft.systemtest.RunLogEvents.next;
import static dev.stagecraft.systemtest.RunLogEvents.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.devstack.StackService;
import dev.stagecraft.systemtest.RunLogEvents.Sse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Run logs resumable on any planner instance (docs/adr/0032), on the real stack: a second planner
 * process (B) beside the stack's own (A), on the same PostgreSQL, Kafka and services. A run driven
 * by A is read from B with {@code Last-Event-ID}, following it to its end; another tenant gets 404
 * on B; after A is killed with SIGKILL and started again, the finished run's log is still served,
 * with the same ids. The run waits at a gate (a file the test creates), so "mid-run" is a state the
 * test controls.
 */
class RunLogsAcrossPlannersTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  static SharedStack stack;
  static PlannerProcess plannerB;
  static String plannerBUrl;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.dedicated("logs-across", Map.of());
    plannerB = PlannerProcess.start(stack, "dev-planner-b", Map.of());
    plannerBUrl = plannerB.url();
  }

  @AfterAll
  static void stop() throws Exception {
    if (plannerB != null) {
      plannerB.close();
    }
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void anotherPlannerServesARunsLogAfterLastEventIdToItsEndAndARestartedPlannerStillServesIt()
      throws Exception {
    String ws = "across-" + UUID.randomUUID().toString().substring(0, 8);
    Path gate = stack.root.resolve(ws + ".gate");
    Path waiting = stack.root.resolve(ws + ".waiting");
    String runId = RunLogsTest.startRun(stack, ws, RunLogsTest.gatedChain(gate, waiting));
    String planner = stack.plannerUrl();
    assertThat(plannerBUrl).isNotEqualTo(planner);

    // on A (which drives the run): read until the gated step says it waits
    List<Sse> firstOnA = new ArrayList<>();
    try (Stream<String> lines = RunLogEvents.open(planner, stack.token(), runId, null)) {
      Iterator<String> it = lines.iterator();
      Sse event;
      do {
        event = next(it);
        assertThat(event).as("A's stream must not end while the run waits").isNotNull();
        firstOnA.add(event);
      } while (!isLog(event, "gate-waiting"));
    }
    assertThat(firstOnA.size()).isGreaterThan(3);
    long resumeAfter = firstOnA.get(2).id();

    // B cannot cancel, approve or discard a live run A drives, and says so (not "no such run" or
    // "not awaiting approval"); the run goes on untouched (it ends applied below)
    for (String[] command :
        List.of(
            new String[] {"cancel", "{}"},
            new String[] {"approve", "{\"planDigest\":\"sha256:0\"}"},
            new String[] {"discard", "{}"})) {
      HttpResponse<String> refused =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(plannerBUrl + "/api/v1/runs/" + runId + "/" + command[0]))
                  .header("Authorization", "Bearer " + stack.token())
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(command[1]))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      assertThat(refused.body())
          .contains("driven by another planner instance")
          .contains("cannot " + command[0] + " it");
    }

    // on B (which does not hold the run): resume after an id A sent, and follow the run to its
    // end; the gate opens only once B has caught up with the waiting step
    CompletableFuture<List<Sse>> onB =
        CompletableFuture.supplyAsync(
            () -> {
              List<Sse> events = new ArrayList<>();
              try (Stream<String> lines =
                  RunLogEvents.open(
                      plannerBUrl, stack.token(), runId, Long.toString(resumeAfter))) {
                Iterator<String> it = lines.iterator();
                for (Sse e = next(it); e != null; e = next(it)) {
                  events.add(e);
                  if (isLog(e, "gate-waiting")) {
                    assertThat(
                            getJson(planner, "/api/v1/runs/" + runId).path("terminal").asBoolean())
                        .isFalse();
                    Files.writeString(gate, "open");
                  }
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
              return events;
            });
    List<Sse> fromB = onB.get(180, TimeUnit.SECONDS);
    assertThat(gate).exists();

    // exactly the entries after the id, in order, ending with the terminal transition
    assertThat(fromB).isNotEmpty();
    assertThat(fromB.getFirst().id()).isEqualTo(resumeAfter + 1);
    for (int i = 1; i < fromB.size(); i++) {
      assertThat(fromB.get(i).id()).isEqualTo(fromB.get(i - 1).id() + 1);
    }
    assertThat(fromB.getLast().name()).isEqualTo("status");
    assertThat(fromB.getLast().data().path("status").asText()).isEqualTo("applied");
    assertThat(fromB.stream().anyMatch(e -> isLog(e, "c-line"))).isTrue();
    // the same ids, names and data as A, which drives the run, serves
    List<Sse> wholeOnA = readAll(planner, stack.token(), runId, null, Duration.ofSeconds(60));
    assertThat(wholeOnA.stream().filter(e -> e.id() > resumeAfter).toList()).isEqualTo(fromB);
    assertThat(wholeOnA.subList(0, firstOnA.size())).isEqualTo(firstOnA);
    // and the long-poll on B answers the same entries
    JsonNode polled =
        getJson(plannerBUrl, "/api/v1/runs/" + runId + "/events?after=" + resumeAfter + "&wait=0");
    assertThat(polled.path("terminal").asBoolean()).isTrue();
    assertThat(polled.path("events").size()).isEqualTo(fromB.size());
    for (int i = 0; i < fromB.size(); i++) {
      assertThat(polled.path("events").get(i)).isEqualTo(fromB.get(i).data());
    }

    // another tenant sees no such run on B
    String other = RunLogsTest.tokenForNewTenant(stack, "across-other-" + ws, "deployer");
    HttpResponse<String> foreign = logsResponse(plannerBUrl, other, runId);
    assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(404);
    assertThat(foreign.body()).doesNotContain("gate").doesNotContain(ws);
    assertThat(logsResponse(plannerBUrl, stack.token(), "run-does-not-exist").statusCode())
        .isEqualTo(404);

    // A killed like a crash and started again: the finished run's log is still served, same ids
    stack.stack().kill(StackService.PLANNER);
    stack.stack().startAgain(StackService.PLANNER);
    assertThat(readAll(stack.plannerUrl(), stack.token(), runId, null, Duration.ofSeconds(60)))
        .isEqualTo(wholeOnA);
    assertThat(
            readAll(
                stack.plannerUrl(),
                stack.token(),
                runId,
                Long.toString(resumeAfter),
                Duration.ofSeconds(60)))
        .isEqualTo(fromB);
    assertThat(logsResponse(stack.plannerUrl(), other, runId).statusCode()).isEqualTo(404);
  }

  private static HttpResponse<String> logsResponse(String base, String token, String runId)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + "/api/v1/runs/" + runId + "/logs"))
            .header("Authorization", "Bearer " + token)
            .header("Accept", "text/event-stream")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode getJson(String base, String path) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + stack.token())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
