package dev.stagecraft.cli.run;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** What the tests' stand-in planners (the JDK's HTTP server) write: JSON answers and SSE events. */
final class StubPlannerHttp {
  private StubPlannerHttp() {}

  /**
   * A server on a free local port that answers the discovery document with its own runs and plans
   * APIs (the CLI finds {@code /api/v1/runs} and {@code /api/v1/plans} through it); not started, so
   * the caller adds its contexts first.
   */
  static com.sun.net.httpserver.HttpServer create() throws IOException {
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    String base = base(server);
    server.createContext(
        "/.well-known/stagecraft.json",
        ex ->
            reply(
                ex,
                200,
                "{\"runs\":\"" + base + "/api/v1/runs\",\"plans\":\"" + base + "/api/v1/plans\"}"));
    return server;
  }

  static String base(com.sun.net.httpserver.HttpServer server) {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

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
