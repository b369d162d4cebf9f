package dev.stagecraft.planner.service.adapter.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.schemas.EventCodec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP stand-in for lock-service or state-service under {@code /internal/v1/} and {@code
 * /api/v1/}: each request gets the next scripted answer (500 when none is left) and is recorded. It
 * can go away ({@link #goDown}: every connection is cut at once, and counted) and come back on the
 * same port ({@link #listenAgain}), as a restarting service does.
 */
final class ScriptedService implements AutoCloseable {
  /** One request as the stand-in saw it. */
  record Seen(String method, String path, JsonNode body) {}

  private record Answer(int status, String body) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Deque<Answer> answers = new ArrayDeque<>();
  private final int port;
  private final AtomicInteger cut = new AtomicInteger();
  private HttpServer server;
  private ServerSocket down;

  private ScriptedService(HttpServer server) {
    this.server = server;
    this.port = server.getAddress().getPort();
  }

  static ScriptedService start() throws IOException {
    ScriptedService s =
        new ScriptedService(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    s.serve(s.server);
    return s;
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  int port() {
    return port;
  }

  List<Seen> seen() {
    return seen;
  }

  void script(int status, String body) {
    synchronized (answers) {
      answers.add(new Answer(status, body));
    }
  }

  /**
   * Stops serving: until {@link #listenAgain}, every connection is accepted and closed at once (the
   * client sees it cut), and counted ({@link #connectionsCut}).
   */
  void goDown() throws IOException {
    server.stop(0);
    down = new ServerSocket();
    down.setReuseAddress(true);
    down.bind(new InetSocketAddress("127.0.0.1", port));
    ServerSocket socket = down;
    Thread.ofVirtual()
        .start(
            () -> {
              while (true) {
                try (Socket s = socket.accept()) {
                  cut.incrementAndGet();
                } catch (IOException e) {
                  return; // closed by listenAgain
                }
              }
            });
  }

  /** How many connections were cut while down. */
  int connectionsCut() {
    return cut.get();
  }

  /** Serves on the same port again; false while the port is not free yet. */
  boolean listenAgain() {
    try {
      if (down != null) {
        down.close();
        down = null;
      }
      HttpServer restarted = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
      serve(restarted);
      server = restarted;
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
    server.stop(0);
    try {
      if (down != null) {
        down.close();
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void serve(HttpServer s) {
    HttpHandler handler =
        exchange -> {
          byte[] in = exchange.getRequestBody().readAllBytes();
          seen.add(
              new Seen(
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getPath(),
                  in.length == 0 ? null : EventCodec.mapper().readTree(in)));
          Answer a;
          synchronized (answers) {
            a = answers.poll();
          }
          if (a == null) {
            a = new Answer(500, "{\"detail\":\"no scripted answer left\"}");
          }
          byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(a.status(), out.length);
          exchange.getResponseBody().write(out);
          exchange.close();
        };
    s.createContext("/internal/v1/", handler);
    s.createContext("/api/v1/", handler);
    s.start();
  }
}
