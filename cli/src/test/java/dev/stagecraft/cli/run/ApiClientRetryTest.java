package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A command that is safe to send again (a cancel) is sent again while the server answers 503 with
 * {@code Retry-After}, as the planners do while the instance that drives a run is being replaced
 * (docs/adr/0050); against a real HTTP server (the JDK's).
 */
class ApiClientRetryTest {
  private static final String UNAVAILABLE =
      "{\"title\":\"Run's planner instance gone\",\"status\":503,"
          + "\"detail\":\"Run r1 is applying and driven by planner instance p-a, whose lease has"
          + " expired\"}";
  private final HttpServer server;
  private final String base;
  private final AtomicInteger calls = new AtomicInteger();
  private final List<String> waited = Collections.synchronizedList(new ArrayList<>());

  ApiClientRetryTest() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    base = "http://127.0.0.1:" + server.getAddress().getPort();
    // unavailable twice (come back in a second), then done
    server.createContext(
        "/twice/cancel",
        ex ->
            reply(
                ex,
                calls.incrementAndGet() <= 2 ? 503 : 202,
                calls.get() <= 2 ? "1" : null,
                calls.get() <= 2 ? UNAVAILABLE : "{\"status\":\"canceled\",\"terminal\":true}"));
    server.createContext(
        "/no-retry-after/cancel",
        ex -> reply(ex, 503, null, tap(UNAVAILABLE.replace("lease has expired", "no hint"))));
    server.createContext("/always/cancel", ex -> reply(ex, 503, "1", tap(UNAVAILABLE)));
    server.createContext(
        "/conflict/cancel",
        ex ->
            reply(ex, 409, "1", tap("{\"status\":409,\"detail\":\"Run r1 is driven elsewhere\"}")));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aCancelIsSentAgainWhileTheServerAsksToRetryAndItsAnswerReturned() throws Exception {
    JsonNode answer =
        new ApiClient(base, "t")
            .postRetrying(base + "/twice/cancel", Map.of(), Duration.ofSeconds(30), waited::add);

    assertThat(answer.path("status").asText()).isEqualTo("canceled");
    assertThat(calls.get()).isEqualTo(3);
    assertThat(waited).hasSize(2);
    assertThat(waited.getFirst())
        .contains("driven by planner instance p-a, whose lease has expired")
        .contains("trying again in 1 s");
  }

  @Test
  void withoutRetryAfterPastThePatienceOrForAnotherStatusTheErrorIsThrownAtOnce() {
    ApiClient api = new ApiClient(base, "t");
    assertThatThrownBy(
            () ->
                api.postRetrying(
                    base + "/no-retry-after/cancel", Map.of(), Duration.ofSeconds(30), waited::add))
        .isInstanceOf(ApiClient.ApiException.class)
        .hasMessageContaining("no hint");
    assertThatThrownBy(
            () ->
                api.postRetrying(
                    base + "/always/cancel", Map.of(), Duration.ofMillis(500), waited::add))
        .isInstanceOf(ApiClient.ApiException.class)
        .hasMessageContaining("lease has expired")
        .satisfies(
            e ->
                assertThat(((ApiClient.ApiException) e).retryAfter())
                    .contains(Duration.ofSeconds(1)));
    assertThatThrownBy(
            () ->
                api.postRetrying(
                    base + "/conflict/cancel", Map.of(), Duration.ofSeconds(30), waited::add))
        .isInstanceOf(ApiClient.ApiException.class)
        .hasMessageContaining("driven elsewhere");
    assertThat(calls.get()).as("each answered once").isEqualTo(3);
    assertThat(waited).isEmpty();
  }

  private String tap(String body) {
    calls.incrementAndGet();
    return body;
  }

  private static void reply(HttpExchange ex, int status, String retryAfter, String body)
      throws IOException {
    ex.getRequestBody().readAllBytes();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/problem+json");
    if (retryAfter != null) {
      ex.getResponseHeaders().add("Retry-After", retryAfter);
    }
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }
}
