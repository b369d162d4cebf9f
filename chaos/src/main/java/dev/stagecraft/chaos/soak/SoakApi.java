package dev.stagecraft.chaos.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The public REST API as the CLI calls it (a tenant's bearer token, JSON), over every planner
 * instance: a call that finds its planner down (connection refused, timeout, 5xx) is tried on the
 * next one, until {@code patience} ran out. Only calls that are safe to repeat go through {@link
 * #call}: reads, commands answered the same on repetition, and run creation with an {@code
 * Idempotency-Key}.
 */
final class SoakApi {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final List<String> planners;
  private final Duration patience;

  SoakApi(List<String> planners, Duration patience) {
    this.planners = List.copyOf(planners);
    this.patience = patience;
  }

  /** A JSON answer. */
  record Response(int status, JsonNode json, String body) {
    String text(String pointer) {
      return json.at(pointer).asText();
    }
  }

  /**
   * @param idempotencyKey sent as {@code Idempotency-Key} when not null
   * @throws IOException when no planner answered within the patience (the last failure)
   */
  Response call(String method, String path, String token, Object body, String idempotencyKey)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    int next = ThreadLocalRandom.current().nextInt(planners.size());
    IOException last = null;
    Response failed = null;
    while (System.nanoTime() < deadline) {
      String base = planners.get(next++ % planners.size());
      try {
        Response r = once(base, method, path, token, body, idempotencyKey);
        if (r.status() < 500) {
          return r;
        }
        failed = r;
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(250); // the planner is down or busy: the next try goes to another one
    }
    if (failed != null) {
      return failed;
    }
    throw last != null ? last : new IOException(method + " " + path + ": no planner answered");
  }

  private static Response once(
      String base, String method, String path, String token, Object body, String idempotencyKey)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(20))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (idempotencyKey != null) {
      b.header("Idempotency-Key", idempotencyKey);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode json;
    try {
      json = r.body().isBlank() ? MissingNode.getInstance() : JSON.readTree(r.body());
    } catch (IOException notJson) {
      json = MissingNode.getInstance();
    }
    return new Response(r.statusCode(), json, r.body());
  }
}
