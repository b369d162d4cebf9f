package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A run's log as a test client reads it: {@code GET /api/v1/runs/{id}/logs} as Server-Sent Events
 * (docs/adr/0015, 0032), parsed line by line, checking the status and the content type.
 */
final class RunLogEvents {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** One event of the stream: its id (the journal sequence), name and JSON data. */
  record Sse(long id, String name, JsonNode data) {}

  private RunLogEvents() {}

  /** The stream's lines, resumed after {@code lastEventId} when it is not null. */
  static Stream<String> open(String plannerUrl, String token, String runId, String lastEventId)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(plannerUrl + "/api/v1/runs/" + runId + "/logs"))
            .header("Authorization", "Bearer " + token)
            .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<Stream<String>> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofLines());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/event-stream");
    return response.body();
  }

  /**
   * Every event until the server ends the stream, within {@code timeout} (for a run that is
   * terminal already, or about to be).
   */
  static List<Sse> readAll(
      String plannerUrl, String token, String runId, String lastEventId, Duration timeout)
      throws Exception {
    CompletableFuture<List<Sse>> all =
        CompletableFuture.supplyAsync(
            () -> {
              List<Sse> events = new ArrayList<>();
              try (Stream<String> lines = open(plannerUrl, token, runId, lastEventId)) {
                Iterator<String> it = lines.iterator();
                for (Sse e = next(it); e != null; e = next(it)) {
                  events.add(e);
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
              return events;
            });
    return all.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The next complete event, or null when the stream ended. */
  static Sse next(Iterator<String> lines) throws IOException {
    Long id = null;
    String name = null;
    StringBuilder data = new StringBuilder();
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (!data.isEmpty()) {
          assertThat(id).as("every event carries an id").isNotNull();
          return new Sse(id, name, JSON.readTree(data.toString()));
        }
      } else if (line.startsWith("id:")) {
        id = Long.parseLong(line.substring(3).strip());
      } else if (line.startsWith("event:")) {
        name = line.substring(6).strip();
      } else if (line.startsWith("data:")) {
        data.append(line.substring(5).strip());
      }
    }
    return null;
  }

  /** True for the log entry of the output line {@code line}. */
  static boolean isLog(Sse event, String line) {
    return event.data().path("kind").asText().equals("log")
        && event.data().path("line").asText().equals(line);
  }
}
