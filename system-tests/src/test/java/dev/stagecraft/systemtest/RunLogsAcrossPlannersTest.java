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
    Path gate = stack.shared.resolve(ws + ".gate");
    Path waiting = stack.shared.resolve(ws + ".waiting");
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

    // B forwards an approve or discard of a live run A drives to A, and relays A's answer: the
    // run applies automatically, so A says it does not await approval; the run goes on untouched
    for (String verb : List.of("approve", "discard")) {
      HttpResponse<String> relayed = command(plannerBUrl, runId, verb, null);
      assertThat(relayed.statusCode()).as(relayed.body()).isEqualTo(409);
      assertThat(relayed.body()).contains("is not waiting for approval");
      assertThat(relayed.headers().firstValue("Stagecraft-Answered-By")).contains("dev-planner");
    }
    // a request that was forwarded once already is never forwarded again (no loops), and says
    // that another instance drives the run
    for (String verb : List.of("cancel", "approve", "discard")) {
      HttpResponse<String> refused = command(plannerBUrl, runId, verb, "dev-planner-c");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      assertThat(refused.body())
          .contains("driven by another planner instance")
          .contains("cannot " + verb + " it");
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

  @Test
  void approveDiscardAndCancelSentToAnotherPlannerAreForwardedToTheOneThatDrivesTheRun()
      throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String planner = stack.plannerUrl();
    Map<String, String> runs = new java.util.LinkedHashMap<>();
    for (String verb : List.of("approve", "discard", "cancel")) {
      String ws = "fwd-" + verb + "-" + suffix;
      createWithoutAutoApply(ws);
      runs.put(
          verb,
          RunLogsTest.startRun(
              stack,
              ws,
              "resource \"stateful_provisioning\" \"app\" {\n"
                  + "  state_key = \"v1\"\n"
                  + "  provisioner \"local-exec\" {\n"
                  + "    command = \"echo forwarded\"\n"
                  + "  }\n"
                  + "}\n"));
    }
    for (String runId : runs.values()) {
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .until(
              () -> getJson(planner, "/api/v1/runs/" + runId).path("status").asText(),
              "planned"::equals);
    }

    // approving on B the digest A shows applies exactly that plan, on A, recorded as approved by
    // the caller
    String approved = runs.get("approve");
    String digest = getJson(planner, "/api/v1/runs/" + approved).path("planDigest").asText();
    HttpResponse<String> approve =
        send(
            plannerBUrl,
            "/api/v1/runs/" + approved + "/approve",
            null,
            JSON.writeValueAsString(Map.of("planDigest", digest)));
    assertThat(approve.statusCode()).as(approve.body()).isEqualTo(202);
    assertThat(approve.headers().firstValue("Stagecraft-Answered-By")).contains("dev-planner");
    assertThat(ended(planner, approved).path("status").asText()).isEqualTo("applied");
    assertThat(getJson(planner, "/api/v1/runs/" + approved).path("approvedBy").asText())
        .isEqualTo("admin@" + getJson(planner, "/api/v1/runs/" + approved).path("tenant").asText());

    // discard and cancel on B end the runs A drives, and each leaves the workspace's lock free:
    // a next run of the workspace plans
    for (String verb : List.of("discard", "cancel")) {
      String runId = runs.get(verb);
      HttpResponse<String> answer =
          send(plannerBUrl, "/api/v1/runs/" + runId + "/" + verb, null, "{}");
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
      assertThat(answer.headers().firstValue("Stagecraft-Answered-By")).contains("dev-planner");
      String expected = verb.equals("discard") ? "discarded" : "canceled";
      assertThat(ended(planner, runId).path("status").asText()).isEqualTo(expected);
      String next =
          RunLogsTest.startRun(
              stack,
              getJson(planner, "/api/v1/runs/" + runId).path("workspace").asText(),
              "resource \"stateful_provisioning\" \"app\" {\n  state_key = \"v2\"\n}\n");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .until(
              () -> getJson(planner, "/api/v1/runs/" + next).path("status").asText(),
              "planned"::equals);
      assertThat(send(planner, "/api/v1/runs/" + next + "/discard", null, "{}").statusCode())
          .isEqualTo(202);
    }
  }

  @Test
  void aChatOpsDecisionSentToAnotherPlannersWebhookIsDecidedByTheOneThatDrivesTheRun()
      throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String planner = stack.plannerUrl();
    HttpResponse<String> issued = send(planner, "/api/v1/hooks/secret", null, "{}");
    assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
    JsonNode trigger = JSON.readTree(issued.body());
    String tenant = trigger.get("tenant").asText();
    String secret = trigger.get("secret").asText();
    String ws = "fwd-decide-" + suffix;
    createWithoutAutoApply(ws);
    String runId =
        RunLogsTest.startRun(
            stack, ws, "resource \"stateful_provisioning\" \"app\" {\n  state_key = \"v1\"\n}\n");
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> getJson(planner, "/api/v1/runs/" + runId).path("status").asText(),
            "planned"::equals);
    String digest = getJson(planner, "/api/v1/runs/" + runId).path("planDigest").asText();

    // another plan's digest, sent to B (which reads the new secret from its topic within moments):
    // A refuses it, B says why, and the run still waits
    HttpResponse<String> stale =
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> decide(plannerBUrl, tenant, secret, runId, "sha256:other"),
                r -> r.statusCode() != 401);
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(stale.body()).contains("is not the plan of run " + runId).contains("dev-planner");
    assertThat(getJson(planner, "/api/v1/runs/" + runId).path("status").asText())
        .isEqualTo("planned");

    // the digest A shows, sent to B: A applies exactly that plan and records who approved it
    HttpResponse<String> approved = decide(plannerBUrl, tenant, secret, runId, digest);
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    assertThat(JSON.readTree(approved.body()).path("decision").asText()).isEqualTo("approve");
    assertThat(ended(planner, runId).path("status").asText()).isEqualTo("applied");
    assertThat(getJson(planner, "/api/v1/runs/" + runId).path("approvedBy").asText())
        .isEqualTo("bob via /bots/slack@" + tenant);
  }

  /** Creates workspace {@code ws} on A, its runs waiting for approval. */
  private static void createWithoutAutoApply(String ws) throws Exception {
    HttpResponse<String> created =
        send(
            stack.plannerUrl(),
            "/api/v1/workspaces",
            null,
            JSON.writeValueAsString(Map.of("name", ws, "autoApply", false)));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
  }

  /** A signed approval of {@code runId} naming {@code digest}, posted to {@code base}'s webhook. */
  private static HttpResponse<String> decide(
      String base, String tenant, String secret, String runId, String digest) throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "specversion",
                "1.0",
                "id",
                "dec-" + UUID.randomUUID(),
                "source",
                "/bots/slack",
                "type",
                "dev.stagecraft.run.decision-requested",
                "tenant",
                tenant,
                "data",
                Map.of(
                    "run_id",
                    runId,
                    "decision",
                    "approve",
                    "plan_digest",
                    digest,
                    "requested_by",
                    "bob")));
    long now = java.time.Instant.now().getEpochSecond();
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + "/api/v1/hooks/run-requests"))
            .header("Content-Type", "application/cloudevents+json")
            .header("stagecraft-timestamp", Long.toString(now))
            .header("stagecraft-signature", ChatOpsTriggerTest.sign(secret, now, body))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The run once it has ended, as A shows it. */
  private static JsonNode ended(String base, String runId) {
    return org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> getJson(base, "/api/v1/runs/" + runId), run -> run.path("terminal").asBoolean());
  }

  /** A POST of a run command to {@code base}, as if forwarded by {@code forwardedBy} when set. */
  private static HttpResponse<String> command(
      String base, String runId, String verb, String forwardedBy) throws Exception {
    String body = verb.equals("approve") ? "{\"planDigest\":\"sha256:0\"}" : "{}";
    return send(base, "/api/v1/runs/" + runId + "/" + verb, forwardedBy, body);
  }

  private static HttpResponse<String> send(
      String base, String path, String forwardedBy, String jsonBody) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + stack.token())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(jsonBody));
    if (forwardedBy != null) {
      request.header("Stagecraft-Forwarded-By", forwardedBy);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
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
