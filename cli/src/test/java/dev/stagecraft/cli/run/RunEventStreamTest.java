package dev.stagecraft.cli.run;

import static dev.stagecraft.cli.run.StubPlannerHttp.reply;
import static dev.stagecraft.cli.run.StubPlannerHttp.sendEvent;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.cli.CliContext;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CLI's Server-Sent Events follower against a real HTTP server (the JDK's) that drops
 * connections and holds them open on purpose.
 */
class RunEventStreamTest {
  private final HttpServer server;
  private final String base;
  private final List<String> lastEventIds = Collections.synchronizedList(new ArrayList<>());
  private final List<String> cancels = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch holding = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  RunEventStreamTest() throws IOException {
    server = StubPlannerHttp.create();
    base = StubPlannerHttp.base(server);
    server.createContext("/api/v1/runs/run-drop/logs", this::dropsAfterTwoEvents);
    server.createContext("/api/v1/runs/run-hold/logs", this::holdsTheStreamOpen);
    server.createContext(
        "/api/v1/runs/run-hold/cancel",
        ex -> {
          cancels.add(ex.getRequestMethod());
          reply(ex, 202, "{\"status\":\"applying\",\"terminal\":false}");
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool()); // held streams
    server.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.stop(0);
  }

  @Test
  void resumesADroppedStreamWithLastEventIdAndDeliversEveryEventOnce() throws Exception {
    List<Long> seen = new ArrayList<>();
    String end =
        new RunEventStream(new ApiClient(base, "t"), "run-drop")
            .follow(e -> seen.add(e.path("sequence").asLong()));
    assertThat(end).isEqualTo("applied");
    assertThat(seen).containsExactly(1L, 2L, 3L);
    assertThat(lastEventIds).containsExactly(null, "2");
  }

  @Test
  void firstCtrlCCancelsTheRunAndSecondDetaches() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx =
        new CliContext(
            Path.of("."),
            Map.of(),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    // cancelOnCtrlC=false: no SIGINT handler in the test JVM; the test calls onCtrlC itself
    RunFollower follower =
        new RunFollower(ctx, new ApiClient(base, "t"), true, false, RunApproval.NONE);
    CompletableFuture<Integer> code =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return follower.follow("run-hold");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

    follower.onCtrlC();
    assertThat(cancels).containsExactly("POST");
    assertThat(code).isNotDone();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("Canceling run run-hold");

    follower.onCtrlC();
    assertThat(code.get(30, TimeUnit.SECONDS)).isEqualTo(RunFollower.DETACHED);
    assertThat(cancels).hasSize(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("stagecraft runs logs run-hold -follow");
  }

  private void dropsAfterTwoEvents(HttpExchange ex) throws IOException {
    String last = ex.getRequestHeaders().getFirst("Last-Event-ID");
    lastEventIds.add(last);
    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = ex.getResponseBody()) {
      if (last == null) {
        // the second event is sent again after the first: the follower must not print it twice
        sendEvent(out, 1, "status", "{\"sequence\":1,\"kind\":\"status\",\"status\":\"pending\"}");
        sendEvent(out, 2, "log", "{\"sequence\":2,\"kind\":\"log\",\"line\":\"x\"}");
        // closed before the terminal transition: a dropped connection
      } else {
        sendEvent(out, 2, "log", "{\"sequence\":2,\"kind\":\"log\",\"line\":\"x\"}");
        sendEvent(out, 3, "status", "{\"sequence\":3,\"kind\":\"status\",\"status\":\"applied\"}");
      }
    }
  }

  private void holdsTheStreamOpen(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = ex.getResponseBody()) {
      sendEvent(out, 1, "status", "{\"sequence\":1,\"kind\":\"status\",\"status\":\"applying\"}");
      holding.countDown();
      release.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the follower went away (detached): what this test wants
    }
  }
}
