package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

/**
 * Follows a run's journal over Server-Sent Events ({@code GET /api/v1/runs/{id}/logs}) until its
 * terminal transition. A dropped connection (the planner restarted, a proxy timed out) is reopened
 * with {@code Last-Event-ID}, so every entry is delivered exactly once and in order; the stream is
 * given up only when the server stays unreachable for {@link #GIVE_UP_AFTER}.
 *
 * <p>Concurrency: {@link #follow} runs on the caller's thread; {@link #detach} may be called from
 * any other thread (a signal handler) and makes {@code follow} return {@code null} promptly.
 */
final class RunEventStream {
  static final Duration GIVE_UP_AFTER = Duration.ofMinutes(2);
  static final Set<String> TERMINAL =
      Set.of("applied", "planned_and_finished", "errored", "canceled", "discarded");
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Receives each journal entry once, in order. */
  interface Listener {
    void onEvent(JsonNode event) throws IOException;
  }

  private final ApiClient api;
  private final String runId;
  private volatile boolean detached;
  private volatile InputStream current;
  private volatile Thread follower;

  RunEventStream(ApiClient api, String runId) {
    this.api = api;
    this.runId = runId;
  }

  /**
   * Delivers the run's entries until its terminal transition and returns that status, or {@code
   * null} when {@link #detach detached}.
   *
   * @throws ApiClient.ApiException when the server refuses the stream (no such run: 404)
   * @throws IOException when the server stayed unreachable for {@link #GIVE_UP_AFTER}
   */
  String follow(Listener listener) throws IOException, InterruptedException {
    follower = Thread.currentThread();
    try {
      return stream(listener);
    } catch (InterruptedException e) {
      if (detached) {
        return null;
      }
      throw e;
    } finally {
      follower = null;
      if (detached) {
        Thread.interrupted(); // the interrupt was ours: do not leak it to the caller
      }
    }
  }

  private String stream(Listener listener) throws IOException, InterruptedException {
    String url = api.api("runs") + "/" + URLEncoder.encode(runId, StandardCharsets.UTF_8) + "/logs";
    long lastId = 0;
    long failingSince = 0;
    long backoffMillis = 100;
    while (!detached) {
      try (InputStream body =
          api.openEventStream(url, lastId == 0 ? null : Long.toString(lastId)).body()) {
        current = body;
        failingSince = 0;
        backoffMillis = 100;
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String id = null;
        StringBuilder data = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
          if (line.isEmpty()) {
            if (!data.isEmpty()) {
              long seq = id == null ? lastId + 1 : Long.parseLong(id.strip());
              // the server resumes after Last-Event-ID; skipping what was seen is belt and braces
              if (seq > lastId) {
                JsonNode event = MAPPER.readTree(data.toString());
                listener.onEvent(event);
                lastId = seq;
                if ("status".equals(event.path("kind").asText())
                    && TERMINAL.contains(event.path("status").asText())) {
                  return event.path("status").asText();
                }
              }
            }
            id = null;
            data.setLength(0);
          } else if (line.startsWith("id:")) {
            id = field(line, 3);
          } else if (line.startsWith("data:")) {
            if (!data.isEmpty()) {
              data.append('\n');
            }
            data.append(field(line, 5));
          }
          // "event:", "retry:" and ":" comments carry nothing the follower needs
        }
        // the stream ended before the terminal transition: the connection dropped; resume
      } catch (ApiClient.ApiException e) {
        if (e.status() < 500) {
          throw e;
        }
        failingSince = failing(failingSince, e);
      } catch (IOException e) {
        if (detached) {
          break;
        }
        failingSince = failing(failingSince, e);
      } finally {
        current = null;
      }
      if (!detached) {
        Thread.sleep(backoffMillis); // reconnect backoff, not a test synchronization
        backoffMillis = Math.min(backoffMillis * 2, 2_000);
      }
    }
    return null;
  }

  /** Stops following: {@link #follow} returns {@code null}. The run itself goes on. */
  void detach() {
    detached = true;
    InputStream in = current;
    if (in != null) {
      try {
        in.close();
      } catch (IOException ignored) {
        // closing is best effort; the interrupt below ends a blocked read too
      }
    }
    Thread t = follower;
    if (t != null) {
      t.interrupt();
    }
  }

  private static long failing(long since, Exception e) throws IOException {
    long now = System.nanoTime();
    if (since == 0) {
      return now;
    }
    if (now - since > GIVE_UP_AFTER.toNanos()) {
      throw new IOException(
          "lost the run's log stream and could not reconnect for "
              + GIVE_UP_AFTER.toSeconds()
              + " s: "
              + e.getMessage(),
          e);
    }
    return since;
  }

  private static String field(String line, int from) {
    String v = line.substring(from);
    return v.startsWith(" ") ? v.substring(1) : v;
  }
}
