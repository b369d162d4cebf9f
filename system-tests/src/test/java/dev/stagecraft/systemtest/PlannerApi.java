package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON calls of the planner's public API with the stack's token, for the system tests that drive it
 * directly; every answer is kept ({@link #answers}) so a leak scan can read them too.
 */
final class PlannerApi {
  private final SharedStack stack;
  private final HttpClient http = HttpClient.newHttpClient();

  /** Every answer read, by call. */
  final Map<String, String> answers = new LinkedHashMap<>();

  PlannerApi(SharedStack stack) {
    this.stack = stack;
  }

  /** A tenant's trigger secret, as {@code POST /api/v1/hooks/secret} issues it. */
  record TriggerSecret(String tenant, String secret) {}

  /** Issues the stack's tenant a new trigger secret (the previous one stays valid for a while). */
  TriggerSecret issueTriggerSecret() throws Exception {
    JsonNode issued = send("POST", "/api/v1/hooks/secret", null, 201);
    return new TriggerSecret(issued.get("tenant").asText(), issued.get("secret").asText());
  }

  /** {@code GET path}, which must answer 200. */
  String get(String path) throws Exception {
    HttpResponse<String> r = request("GET", path, null);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return r.body();
  }

  /** A call that must answer {@code expected}; its JSON (an empty object for none). */
  JsonNode send(String method, String path, Object body, int expected) throws Exception {
    HttpResponse<String> r = request(method, path, body);
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(expected);
    return r.body().isEmpty()
        ? EventCodec.mapper().createObjectNode()
        : EventCodec.mapper().readTree(r.body());
  }

  /** A call with {@code body} as JSON (null: none). */
  HttpResponse<String> request(String method, String path, Object body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .header("Authorization", "Bearer " + stack.token());
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json")
          .method(
              method,
              HttpRequest.BodyPublishers.ofString(EventCodec.mapper().writeValueAsString(body)));
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    answers.put(method + " " + path + " #" + answers.size(), r.body());
    return r;
  }

  /** Posts {@code body} to {@code path} without the token, with {@code headers}. */
  HttpResponse<String> postUnauthenticated(String path, String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::header);
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    answers.put("POST " + path + " #" + answers.size(), r.body());
    return r;
  }
}
