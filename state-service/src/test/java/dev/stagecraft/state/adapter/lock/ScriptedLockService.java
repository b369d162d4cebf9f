package dev.stagecraft.state.adapter.lock;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An HTTP stand-in for the lock service's internal API: answers each request with the next scripted
 * answer (500 when none is left) and records every request's method and path, in order.
 */
public final class ScriptedLockService implements AutoCloseable {
  private record Answer(int status, String body) {}

  private final HttpServer server;
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final Deque<Answer> answers = new ArrayDeque<>();

  public ScriptedLockService() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/internal/v1/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
          Answer a;
          synchronized (answers) {
            a = answers.poll();
          }
          if (a == null) {
            a = new Answer(500, "{}");
          }
          byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(a.status(), out.length);
          exchange.getResponseBody().write(out);
          exchange.close();
        });
    server.start();
  }

  /** The base URL to give a {@link LockServiceClient}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** A client of this stand-in. */
  public LockServiceClient client() {
    return new LockServiceClient(url(), "token");
  }

  /** Queues the answer to the next request not answered yet. */
  public void script(int status, String body) {
    synchronized (answers) {
      answers.add(new Answer(status, body));
    }
  }

  /** Every request so far, as "METHOD path". */
  public List<String> seen() {
    return seen;
  }

  /** Forgets the requests seen so far. */
  public void forget() {
    seen.clear();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
