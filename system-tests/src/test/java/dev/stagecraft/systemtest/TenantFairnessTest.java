package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Fair sharing between tenants on the real stack (issue 6): the shared stack's planner runs with
 * the default per-tenant cap of 4 active runs ({@code
 * STAGECRAFT_PLANNER_MAX_ACTIVE_RUNS_PER_TENANT} unset). Tenant A submits 50 runs on 10 workspaces,
 * then tenant B submits one: B's run applies before A's backlog has drained, and A's waiting runs
 * say why they wait. The runs have no provisioners (one no-op action each), so the test takes
 * seconds.
 */
class TenantFairnessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int CAP = 4;

  @Test
  void aSecondTenantsRunAppliesBeforeTheFirstTenantsBacklogOfFiftyDrains() throws Exception {
    SharedStack stack = SharedStack.get();
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String tokenA = createTenant(stack, "fair-a-" + suffix);
    String tokenB = createTenant(stack, "fair-b-" + suffix);

    // A's first CAP runs take all of A's slots and keep them: their workspaces wait for approval
    List<String> holders = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      HttpResponse<String> ws =
          send(
                  stack,
                  tokenA,
                  "POST",
                  "/api/v1/workspaces",
                  Map.of("name", "ws-" + i, "autoApply", i >= CAP))
              .join();
      assertThat(ws.statusCode()).as(ws.body()).isEqualTo(201);
    }
    for (int i = 0; i < CAP; i++) {
      HttpResponse<String> r = postRun(stack, tokenA, "ws-" + i, "a" + i).join();
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
      holders.add(JSON.readTree(r.body()).get("id").asText());
    }
    for (String holder : holders) {
      awaitStatus(stack, tokenA, holder, "planned");
    }
    for (int i = 0; i < CAP; i++) {
      send(stack, tokenA, "PATCH", "/api/v1/workspaces/ws-" + i, Map.of("autoApply", true)).join();
    }

    // the other 46 of A's 50 runs go in at once, on the 10 workspaces: all wait for a slot
    List<CompletableFuture<HttpResponse<String>>> posts = new ArrayList<>();
    for (int i = CAP; i < 50; i++) {
      posts.add(postRun(stack, tokenA, "ws-" + (i % 10), "a" + i));
    }
    List<String> backlog = new ArrayList<>();
    for (var post : posts) {
      HttpResponse<String> r = post.join();
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
      backlog.add(JSON.readTree(r.body()).get("id").asText());
    }
    String waitReason = "waiting: tenant has " + CAP + " active runs (cap " + CAP + ")";
    for (String id : backlog) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> waitReason.equals(get(stack, tokenA, id).path("message").asText()));
    }

    // then B's single run: A's backlog does not hold it up
    HttpResponse<String> b = postRun(stack, tokenB, "ws-0", "b").join();
    assertThat(b.statusCode()).as(b.body()).isEqualTo(201);
    String runOfB = JSON.readTree(b.body()).get("id").asText();
    awaitStatus(stack, tokenB, runOfB, "applied");
    assertThat(get(stack, tokenB, runOfB).get("transitions").toString())
        .as("B never waited for a slot")
        .doesNotContain("waiting: tenant has");
    for (String id : backlog) {
      JsonNode run = get(stack, tokenA, id);
      assertThat(run.get("status").asText()).as(id + " still waits").isEqualTo("queued");
      assertThat(run.get("message").asText()).isEqualTo(waitReason);
    }
    Instant bApplied = transitionAt(get(stack, tokenB, runOfB), "applied");

    // A's slots come free (its first runs are discarded) and its backlog drains
    for (String holder : holders) {
      HttpResponse<String> d =
          send(stack, tokenA, "POST", "/api/v1/runs/" + holder + "/discard", Map.of()).join();
      assertThat(d.statusCode()).as(d.body()).isEqualTo(202);
    }
    List<JsonNode> drained = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              drained.clear();
              for (String id : backlog) {
                JsonNode run = get(stack, tokenA, id);
                if (!run.get("terminal").asBoolean()) {
                  return false;
                }
                drained.add(run);
              }
              return true;
            });
    assertThat(drained)
        .allMatch(r -> "applied".equals(r.get("status").asText()), "applied")
        .allMatch(r -> r.get("transitions").toString().contains(waitReason), "said why it waited");
    Instant lastAStarted =
        drained.stream()
            .map(r -> transitionAt(r, "planning"))
            .max(Instant::compareTo)
            .orElseThrow();
    assertThat(bApplied).as("B applied before A's last run started").isBefore(lastAStarted);
  }

  private static void awaitStatus(SharedStack stack, String token, String run, String status) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get(stack, token, run).get("status").asText(), status::equals);
  }

  /** When the run first turned {@code status}, from its recorded transitions. */
  private static Instant transitionAt(JsonNode run, String status) {
    for (JsonNode t : run.get("transitions")) {
      if (status.equals(t.get("status").asText())) {
        return Instant.parse(t.get("at").asText()); // ISO-8601 text
      }
    }
    throw new AssertionError("run " + run.get("id") + " never turned " + status + ": " + run);
  }

  /** Creates a tenant with the dev stack's operator token; returns its first admin token. */
  private static String createTenant(SharedStack stack, String name) throws Exception {
    HttpResponse<String> r =
        send(stack, stack.token(), "POST", "/api/v1/tenants", Map.of("name", name)).join();
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("token").asText();
  }

  private static CompletableFuture<HttpResponse<String>> postRun(
      SharedStack stack, String token, String ws, String stateKey) {
    return send(
        stack,
        token,
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
                    + "\"\n}\n")));
  }

  private static JsonNode get(SharedStack stack, String token, String run) throws Exception {
    return JSON.readTree(send(stack, token, "GET", "/api/v1/runs/" + run, null).join().body());
  }

  private static CompletableFuture<HttpResponse<String>> send(
      SharedStack stack, String token, String method, String path, Object body) {
    try {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
              .header("Authorization", "Bearer " + token)
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
      if (body != null) {
        b.header("Content-Type", "application/json");
      }
      return HTTP.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
