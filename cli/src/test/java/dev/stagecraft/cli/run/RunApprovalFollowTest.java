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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the CLI decides when the run it follows waits for approval, against a real HTTP server (the
 * JDK's) that answers as the planner does: the run planned the plan {@code sha256:run} and waits.
 * The stream goes on to the run's end only once the CLI decided (or, following without deciding,
 * read the run): the follower handles one event at a time, so nothing here waits on time.
 */
class RunApprovalFollowTest {
  private static final String RUN = "/api/v1/runs/run-w";
  private final HttpServer server;
  private final String base;
  private final List<String> decisions = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch next = new CountDownLatch(1);
  private volatile boolean goOnOnceRead;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  RunApprovalFollowTest() throws IOException {
    server = StubPlannerHttp.create();
    base = StubPlannerHttp.base(server);
    server.createContext(RUN + "/logs", this::stream);
    server.createContext(
        RUN,
        ex -> {
          reply(
              ex,
              200,
              "{\"id\":\"run-w\",\"status\":\"planned\",\"terminal\":false,"
                  + "\"awaitingApproval\":true,\"planDigest\":\"sha256:run\","
                  + "\"approvalExpiresAt\":\"2026-11-29T08:00:00Z\"}");
          if (goOnOnceRead) {
            next.countDown();
          }
        });
    server.createContext(RUN + "/approve", ex -> decide(ex, "approve"));
    server.createContext(RUN + "/discard", ex -> decide(ex, "discard"));
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool()); // a held stream
    server.start();
  }

  @AfterEach
  void stop() {
    next.countDown();
    server.stop(0);
  }

  @Test
  void approvesExactlyThePlanTheUserApprovedWhenTheRunMadeIt() throws Exception {
    int code = follow(RunApproval.of("sha256:run"));

    assertThat(decisions).containsExactly("approve {\"planDigest\":\"sha256:run\"}");
    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("Approved plan sha256:run.");
  }

  @Test
  void discardsARunThatPlannedSomethingElseThanThePlanTheUserApproved() throws Exception {
    int code = follow(RunApproval.of("sha256:shown"));

    assertThat(decisions).containsExactly("discard {}");
    assertThat(code).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("planned something else than the plan you approved (sha256:shown")
        .contains("nothing was applied");
  }

  @Test
  void autoApproveApprovesThePlanTheRunMade() throws Exception {
    int code = follow(RunApproval.ANY);

    assertThat(decisions).containsExactly("approve {\"planDigest\":\"sha256:run\"}");
    assertThat(code).isZero();
  }

  @Test
  void followingWithoutDecidingSaysHowToDecideAndDecidesNothing() throws Exception {
    goOnOnceRead = true;
    int code = follow(RunApproval.NONE);

    assertThat(decisions).isEmpty();
    assertThat(code).isEqualTo(1); // the stub's run then ends discarded
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            "Run run-w waits for approval of its plan sha256:run (until 2026-11-29T08:00:00Z)")
        .contains("stagecraft runs approve run-w -digest=sha256:run")
        .contains("stagecraft runs discard run-w");
  }

  private int follow(RunApproval approval) throws Exception {
    CliContext ctx =
        new CliContext(
            Path.of("."),
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    // cancelOnCtrlC=false: no SIGINT handler in the test JVM
    return new RunFollower(ctx, new ApiClient(base, "t"), false, false, approval).follow("run-w");
  }

  private void decide(HttpExchange ex, String verb) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    decisions.add(verb + " " + body);
    reply(ex, 202, "{\"status\":\"" + (verb.equals("approve") ? "planned" : "discarded") + "\"}");
    next.countDown();
  }

  /** {@code planned}, then, once the CLI decided, the run's end as that decision makes it. */
  private void stream(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream body = ex.getResponseBody()) {
      sendEvent(body, 1, "status", "{\"sequence\":1,\"kind\":\"status\",\"status\":\"planned\"}");
      if (!next.await(60, TimeUnit.SECONDS)) {
        return;
      }
      boolean approved = decisions.stream().anyMatch(d -> d.startsWith("approve"));
      sendEvent(
          body,
          2,
          "status",
          "{\"sequence\":2,\"kind\":\"status\",\"status\":\""
              + (approved ? "applied" : "discarded")
              + "\",\"message\":\"end\"}");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
