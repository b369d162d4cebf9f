package dev.stagecraft.cli.run;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** What the tests' stand-in planners (the JDK's HTTP server) write: JSON answers and SSE events. */
final class StubPlannerHttp {
  private StubPlannerHttp() {}

  /** One Server-Sent Event of a run's log, flushed at once. */
  static void sendEvent(OutputStream out, long id, String name, String json) throws IOException {
    out.write(
        ("id:" + id + "\nevent:" + name + "\ndata:" + json + "\n\n")
            .getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  static void reply(HttpExchange ex, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }
}
