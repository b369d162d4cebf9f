package dev.stagecraft.cli.state;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.StagecraftCli;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** taint/untaint against a stub planner: what is sent where, and what is printed. */
class TaintCommandTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private volatile int status = 200;
  private volatile String answer = "{\"serial\":3}";

  @BeforeEach
  void startStub() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    server.createContext(
        "/.well-known/stagecraft.json",
        e -> respond(e, 200, "{\"workspaces\":\"" + base + "/api/v1/workspaces\"}"));
    server.createContext(
        "/api/v1/workspaces",
        e -> {
          requests.add(
              e.getRequestMethod()
                  + " "
                  + e.getRequestURI().getRawPath()
                  + " "
                  + e.getRequestHeaders().getFirst("Authorization")
                  + " "
                  + new String(e.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          respond(e, status, answer);
        });
    server.start();
  }

  @AfterEach
  void stopStub() {
    server.stop(0);
  }

  private static void respond(HttpExchange e, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().add("Content-Type", "application/json");
    e.sendResponseHeaders(status, bytes.length);
    e.getResponseBody().write(bytes);
    e.close();
  }

  private int run(String... args) {
    CliContext context =
        new CliContext(
            tmp,
            Map.of(
                "STAGECRAFT_HOME",
                tmp.resolve("home").toString(),
                "STAGECRAFT_ADDR",
                "http://127.0.0.1:" + server.getAddress().getPort(),
                "STAGECRAFT_TOKEN",
                "sc_test"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    return new StagecraftCli().run(args, context);
  }

  @Test
  void taintPostsTheAddressToTheWorkspaceAndSaysItWasMarked() {
    assertThat(run("taint", "-workspace=prod", "stateful_provisioning.app[\"k\"]")).isZero();

    assertThat(requests)
        .containsExactly(
            "POST /api/v1/workspaces/prod/taint Bearer sc_test"
                + " {\"address\":\"stateful_provisioning.app[\\\"k\\\"]\"}");
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "Resource instance stateful_provisioning.app[\"k\"] has been marked as tainted.\n");
  }

  @Test
  void untaintUsesTheDefaultWorkspaceAndSaysItWasUntainted() {
    assertThat(run("untaint", "stateful_provisioning.app")).isZero();

    assertThat(requests)
        .singleElement()
        .asString()
        .startsWith("POST /api/v1/workspaces/default/untaint ");
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "Resource instance stateful_provisioning.app has been successfully untainted.\n");
  }

  @Test
  void printsTheServersProblemAndExitsOne() {
    status = 404;
    answer =
        "{\"type\":\"x\",\"title\":\"No such resource instance\",\"status\":404,"
            + "\"detail\":\"No such resource instance: stateful_provisioning.nope\"}";

    assertThat(run("taint", "stateful_provisioning.nope")).isEqualTo(1);

    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("Error: No such resource instance: stateful_provisioning.nope");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void needsExactlyOneAddress() {
    assertThat(run("taint")).isEqualTo(1);
    assertThat(run("untaint", "a.b", "c.d")).isEqualTo(1);
    assertThat(run("taint", "-lock=false", "a.b")).isEqualTo(1);

    assertThat(requests).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("needs exactly one resource instance address")
        .contains("unknown option -lock=false")
        .contains("Usage: stagecraft taint ADDR");
  }
}
