package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.platform.auth.ServiceRole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Over the real stack (planner, lock service, state service, executor, Kafka, PostgreSQL): on a
 * workspace with coalescing on, a queued run is superseded by a newer one — it ends {@code
 * canceled} naming the newer run, its lock request is gone, and the newer run applies; and {@code
 * Idempotency-Key} on {@code POST /api/v1/runs} replays the first run or refuses another body.
 */
class RunCoalescingAndIdempotencyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void aQueuedRunIsSupersededByTheNewerOneWhichApplies() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "coalesce-" + UUID.randomUUID().toString().substring(0, 8);
    HttpResponse<String> created =
        call(
            stack,
            "POST",
            "/api/v1/workspaces",
            Map.of("name", ws, "autoApply", false, "coalescing", true),
            Map.of());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    // the first run holds the workspace lock while it waits for approval
    String first = startRun(stack, ws, "v1", Map.of());
    String digest = awaitStatus(stack, first, "planned").get("planDigest").asText();
    HttpResponse<String> patched =
        call(stack, "PATCH", "/api/v1/workspaces/" + ws, Map.of("autoApply", true), Map.of());
    assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);

    String second = startRun(stack, ws, "v2", Map.of());
    awaitStatus(stack, second, "queued");
    assertThat(lockQueue(stack, ws)).containsExactly(second);

    String third = startRun(stack, ws, "v3", Map.of());
    JsonNode superseded = awaitStatus(stack, second, "canceled");
    assertThat(superseded.get("message").asText())
        .startsWith("Superseded by run " + third)
        .contains("run:default");
    assertThat(lockQueue(stack, ws))
        .as("the second run's lock request is gone")
        .containsExactly(third);

    // the run's events (its journal) say so, and it never planned
    JsonNode events =
        JSON.readTree(
            call(stack, "GET", "/api/v1/runs/" + second + "/events", null, Map.of()).body());
    List<String> statuses = new ArrayList<>();
    events.get("events").forEach(e -> statuses.add(e.path("status").asText()));
    assertThat(statuses)
        .containsSubsequence("pending", "queued", "canceled")
        .doesNotContain("planning");
    assertThat(events.get("events").toString()).contains("Superseded by run " + third);

    HttpResponse<String> approved =
        call(
            stack,
            "POST",
            "/api/v1/runs/" + first + "/approve",
            Map.of("planDigest", digest),
            Map.of());
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    awaitStatus(stack, first, "applied");
    awaitStatus(stack, third, "applied");
    assertThat(get(stack, second).get("status").asText()).isEqualTo("canceled");
  }

  @Test
  void theSameIdempotencyKeyReplaysTheFirstRunAndAnotherBodyIsRefused() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = "idem-" + UUID.randomUUID().toString().substring(0, 8);
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = postRun(stack, ws, "v1", Map.of("Idempotency-Key", key));
    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    String runId = JSON.readTree(first.body()).get("id").asText();

    HttpResponse<String> retry = postRun(stack, ws, "v1", Map.of("Idempotency-Key", key));
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(JSON.readTree(retry.body()).get("id").asText()).isEqualTo(runId);

    HttpResponse<String> other = postRun(stack, ws, "v2", Map.of("Idempotency-Key", key));
    assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
    assertThat(other.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    assertThat(other.body()).contains("Idempotency-Key reused").contains(runId);

    // the key is per workspace: the same key on another workspace makes its own run
    HttpResponse<String> elsewhere =
        postRun(stack, ws + "-b", "v1", Map.of("Idempotency-Key", key));
    assertThat(elsewhere.statusCode()).as(elsewhere.body()).isEqualTo(201);
    assertThat(JSON.readTree(elsewhere.body()).get("id").asText()).isNotEqualTo(runId);

    HttpResponse<String> bad = postRun(stack, ws, "v1", Map.of("Idempotency-Key", "has space"));
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);

    awaitStatus(stack, runId, "applied");
    // after the run ended (and whatever this instance keeps in memory) the key still replays it
    HttpResponse<String> late = postRun(stack, ws, "v1", Map.of("Idempotency-Key", key));
    assertThat(late.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(late.body()).get("id").asText()).isEqualTo(runId);
    List<String> runsOfWs = new ArrayList<>();
    JSON.readTree(call(stack, "GET", "/api/v1/runs?workspace=" + ws, null, Map.of()).body())
        .forEach(r -> runsOfWs.add(r.get("id").asText()));
    assertThat(runsOfWs).as("one run for four requests with the key").containsExactly(runId);
  }

  /** The holders queued for the workspace lock, from the lock service's internal API. */
  private static List<String> lockQueue(SharedStack stack, String ws) throws Exception {
    String plannerToken = stack.serviceToken(ServiceRole.PLANNER);
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create(
                        stack.stack().info().lock()
                            + "/internal/v1/tenants/dev/workspaces/"
                            + ws
                            + "/lock"))
                .header("Authorization", "Bearer " + plannerToken)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> queue = new ArrayList<>();
    JSON.readTree(r.body()).get("queue").forEach(h -> queue.add(h.asText()));
    return queue;
  }

  private static String startRun(
      SharedStack stack, String ws, String stateKey, Map<String, String> headers) throws Exception {
    HttpResponse<String> r = postRun(stack, ws, stateKey, headers);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("id").asText();
  }

  private static HttpResponse<String> postRun(
      SharedStack stack, String ws, String stateKey, Map<String, String> headers) throws Exception {
    return call(
        stack,
        "POST",
        "/api/v1/runs",
        Map.of(
            "workspace",
            ws,
            "files",
            Map.of(
                "main.tf",
                "resource \"stateful_provisioning\" \"app\" {\n  state_key = \""
                    + stateKey
                    + "\"\n}\n")),
        headers);
  }

  private static JsonNode awaitStatus(SharedStack stack, String run, String status) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get(stack, run).get("status").asText(), status::equals);
    try {
      return get(stack, run);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode get(SharedStack stack, String run) throws Exception {
    return JSON.readTree(call(stack, "GET", "/api/v1/runs/" + run, null, Map.of()).body());
  }

  private static HttpResponse<String> call(
      SharedStack stack, String method, String path, Object body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .header("Authorization", "Bearer " + stack.token())
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    headers.forEach(b::header);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
