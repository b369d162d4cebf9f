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
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Approval over the real stack: a workspace without auto-apply stops its runs at {@code planned};
 * approving another digest is refused, approving the shown digest applies it, and a discarded run
 * ends {@code discarded} with the workspace lock free for the next run.
 */
class RunApprovalEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void aPlanIsAppliedOnlyWhenItsDigestIsApprovedAndADiscardFreesTheWorkspace() throws Exception {
    SharedStack stack = SharedStack.get();
    String ws = workspaceWithoutAutoApply(stack, "approval-");

    String first = startRun(stack, ws, "v1");
    JsonNode planned = awaitStatus(stack, first, "planned");
    String digest = planned.get("planDigest").asText();
    assertThat(planned.get("awaitingApproval").asBoolean()).as(planned.toString()).isTrue();
    // times are ISO-8601 text
    assertThat(java.time.Instant.parse(planned.get("approvalExpiresAt").asText()))
        .isAfter(java.time.Instant.parse(planned.get("createdAt").asText()));
    HttpResponse<String> wrong =
        call(stack, "POST", "/api/v1/runs/" + first + "/approve", Map.of("planDigest", "sha256:x"));
    assertThat(wrong.statusCode()).as(wrong.body()).isEqualTo(409);
    assertThat(wrong.body()).contains("Stale plan");
    assertThat(get(stack, first).get("status").asText()).isEqualTo("planned");

    HttpResponse<String> approved =
        call(stack, "POST", "/api/v1/runs/" + first + "/approve", Map.of("planDigest", digest));
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    JsonNode applied = awaitStatus(stack, first, "applied");
    assertThat(applied.get("approvedBy").asText()).isEqualTo("admin@dev");
    assertThat(applied.get("awaitingApproval").asBoolean()).as(applied.toString()).isFalse();
    assertThat(applied.has("approvalExpiresAt")).isFalse();
    assertThat(applied.get("transitions").toString()).contains("Approved by admin@dev");

    String second = startRun(stack, ws, "v2");
    awaitStatus(stack, second, "planned");
    HttpResponse<String> discarded =
        call(stack, "POST", "/api/v1/runs/" + second + "/discard", Map.of());
    assertThat(discarded.statusCode()).as(discarded.body()).isEqualTo(202);
    assertThat(get(stack, second).get("status").asText()).isEqualTo("discarded");
    HttpResponse<String> late =
        call(stack, "POST", "/api/v1/runs/" + second + "/approve", Map.of("planDigest", digest));
    assertThat(late.statusCode()).isEqualTo(409);

    // the discard released the lock: the next run plans at once instead of queueing
    String third = startRun(stack, ws, "v3");
    awaitStatus(stack, third, "planned");
    call(stack, "POST", "/api/v1/runs/" + third + "/discard", Map.of());
  }

  /** A new workspace (name: {@code prefix} and a random part) whose runs wait for approval. */
  static String workspaceWithoutAutoApply(SharedStack stack, String prefix) throws Exception {
    String ws = prefix + UUID.randomUUID().toString().substring(0, 8);
    assertThat(
            call(stack, "POST", "/api/v1/workspaces", Map.of("name", ws, "autoApply", false))
                .statusCode())
        .isEqualTo(201);
    return ws;
  }

  static String startRun(SharedStack stack, String ws, String key) throws Exception {
    HttpResponse<String> r =
        call(
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
                        + key
                        + "\"\n}\n")));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("id").asText();
  }

  static JsonNode awaitStatus(SharedStack stack, String run, String status) {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> get(stack, run).get("status").asText(), status::equals);
    try {
      return get(stack, run);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonNode get(SharedStack stack, String run) throws Exception {
    return JSON.readTree(call(stack, "GET", "/api/v1/runs/" + run, null).body());
  }

  static HttpResponse<String> call(SharedStack stack, String method, String path, Object body)
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
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
