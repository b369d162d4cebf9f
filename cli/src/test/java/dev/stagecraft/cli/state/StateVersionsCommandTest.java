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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * state versions / diff / rollback / push against a stub state API: what is sent where (the lock
 * taken and released around a write, or the caller's lock used), and what is printed.
 */
class StateVersionsCommandTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  /** Answers by "METHOD path" (the query left out): status and body; unknown ones get 404. */
  private final Map<String, Map.Entry<Integer, String>> answers = new ConcurrentHashMap<>();

  private HttpServer server;
  private String stdin = "";

  @BeforeEach
  void startStub() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    server.createContext(
        "/.well-known/stagecraft.json",
        e -> respond(e, 200, "{\"state\":\"" + base + "/api/v1\"}"));
    server.createContext(
        "/api/v1/workspaces",
        e -> {
          String query = e.getRequestURI().getRawQuery();
          requests.add(
              e.getRequestMethod()
                  + " "
                  + e.getRequestURI().getRawPath()
                  + (query == null ? "" : "?" + query)
                  + " "
                  + new String(e.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          Map.Entry<Integer, String> answer =
              answers.getOrDefault(
                  e.getRequestMethod() + " " + e.getRequestURI().getRawPath(),
                  Map.entry(404, "{\"detail\":\"no such thing\"}"));
          respond(e, answer.getKey(), answer.getValue());
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

  private void answer(String request, int status, String body) {
    answers.put(request, Map.entry(status, body));
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
            new BufferedReader(new StringReader(stdin)));
    return new StagecraftCli().run(args, context);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void versionsPrintsOneRowPerVersionWithADashForNoRunOrActor() {
    answer(
        "GET /api/v1/workspaces/prod%20eu/state/versions",
        200,
        "[{\"serial\":17,\"time\":\"2026-01-02T03:04:05Z\",\"type\":\"push\",\"runId\":null,"
            + "\"actor\":null,\"digest\":\"sha256:aa\"},"
            + "{\"serial\":18,\"time\":\"2026-01-02T03:05:00Z\",\"type\":\"apply\","
            + "\"runId\":\"run-1\",\"actor\":\"alice\",\"digest\":\"sha256:bb\"}]");

    assertThat(run("state", "versions", "-workspace=prod eu")).isZero();

    assertThat(requests).containsExactly("GET /api/v1/workspaces/prod%20eu/state/versions ");
    assertThat(out())
        .isEqualTo(
            String.format(
                "%-8s %-27s %-18s %-22s %-24s %s%n"
                    + "%-8d %-27s %-18s %-22s %-24s %s%n"
                    + "%-8d %-27s %-18s %-22s %-24s %s%n",
                "SERIAL",
                "TIME",
                "CHANGE",
                "RUN",
                "ACTOR",
                "DIGEST",
                17,
                "2026-01-02T03:04:05Z",
                "push",
                "-",
                "-",
                "sha256:aa",
                18,
                "2026-01-02T03:05:00Z",
                "apply",
                "run-1",
                "alice",
                "sha256:bb"));
  }

  @Test
  void diffPrintsInstancesAttributesFieldsAndOutputs() {
    answer(
        "GET /api/v1/workspaces/default/state/diff",
        200,
        "{\"from\":3,\"to\":5,\"instances\":["
            + "{\"address\":\"null_resource.a\",\"change\":\"added\",\"attributes\":[],"
            + "\"fields\":[]},"
            + "{\"address\":\"null_resource.b\",\"change\":\"changed\","
            + "\"attributes\":[{\"name\":\"id\",\"before\":\"1\",\"after\":\"2\"}],"
            + "\"fields\":[\"dependencies\"]}],"
            + "\"outputs\":[{\"name\":\"url\",\"change\":\"changed\",\"before\":\"x\","
            + "\"after\":\"(sensitive)\"}]}");

    assertThat(run("state", "diff", "3", "5")).isZero();

    assertThat(requests).containsExactly("GET /api/v1/workspaces/default/state/diff?from=3&to=5 ");
    assertThat(out())
        .isEqualTo(
            """
            Changes from serial 3 to 5:
            + null_resource.a (added)
            ~ null_resource.b (changed)
                id: "1" -> "2"
                (dependencies changed)
              output url (changed): "x" -> "(sensitive)"
            """);
  }

  @Test
  void rollbackTakesTheLockWritesUnderItAndReleasesIt() {
    answer("POST /api/v1/workspaces/default/lock", 200, "{\"ID\":\"lock 1\"}");
    answer("POST /api/v1/workspaces/default/state/rollback", 200, "{\"serial\":19}");
    answer("DELETE /api/v1/workspaces/default/lock/lock%201", 200, "{}");

    assertThat(run("state", "rollback", "17")).isZero();

    assertThat(requests)
        .containsExactly(
            "POST /api/v1/workspaces/default/lock {\"Operation\":\"stagecraft-rollback\","
                + "\"Info\":\"stagecraft CLI\",\"Version\":\"stagecraft\"}",
            "POST /api/v1/workspaces/default/state/rollback "
                + requests.get(1).substring(requests.get(1).indexOf('{')),
            "DELETE /api/v1/workspaces/default/lock/lock%201 ");
    assertThat(requests.get(1)).contains("\"serial\":17").contains("\"lockId\":\"lock 1\"");
    assertThat(out()).isEqualTo("Rolled back to version 17: the state is now serial 19.\n");
  }

  @Test
  void pushWithTheCallersLockAndForceSendsTheFileOnly() throws IOException {
    Files.writeString(tmp.resolve("s.tfstate"), "{\"version\":4,\"serial\":2}");
    answer("POST /api/v1/workspaces/ws/state", 200, "{\"serial\":2}");

    assertThat(run("state", "push", "-force", "-lock-id=held", "-workspace", "ws", "s.tfstate"))
        .isZero();

    assertThat(requests)
        .containsExactly(
            "POST /api/v1/workspaces/ws/state?lockId=held&force=true {\"version\":4,\"serial\":2}");
    assertThat(out()).isEqualTo("Pushed: the state is now serial 2.\n");
  }

  @Test
  void pushOfDashReadsTheDocumentFromStandardInput() {
    stdin = "{\"version\":4,\n\"serial\":7}\n";
    answer("POST /api/v1/workspaces/default/lock", 200, "{\"ID\":\"l\"}");
    answer("POST /api/v1/workspaces/default/state", 200, "{\"serial\":7}");
    answer("DELETE /api/v1/workspaces/default/lock/l", 200, "{}");

    assertThat(run("state", "push", "-")).isZero();

    assertThat(requests)
        .contains(
            "POST /api/v1/workspaces/default/state?lockId=l {\"version\":4,\n\"serial\":7}\n");
    assertThat(out()).isEqualTo("Pushed: the state is now serial 7.\n");
  }

  @Test
  void aLockedWorkspaceNamesTheHolderAndWritesNothing() throws IOException {
    Files.writeString(tmp.resolve("s.tfstate"), "{}");
    answer(
        "POST /api/v1/workspaces/default/lock",
        423,
        "{\"ID\":\"other\",\"Who\":\"bob@host\",\"Operation\":\"OperationTypeApply\"}");

    assertThat(run("state", "push", "s.tfstate")).isEqualTo(1);

    assertThat(requests)
        .singleElement()
        .asString()
        .startsWith("POST /api/v1/workspaces/default/lock ");
    assertThat(err())
        .contains(
            "Error: the workspace is locked. Lock Info: ID other, who bob@host,"
                + " operation OperationTypeApply");
    assertThat(out()).isEmpty();
  }

  @Test
  void aRefusedPushPrintsTheDiagnosticsAndReleasesTheLock() throws IOException {
    Files.writeString(tmp.resolve("s.tfstate"), "{}");
    answer("POST /api/v1/workspaces/default/lock", 200, "{\"ID\":\"l\"}");
    answer(
        "POST /api/v1/workspaces/default/state",
        409,
        "{\"detail\":\"the lineage differs\",\"diagnostics\":[\"stored lineage abc\"]}");
    answer("DELETE /api/v1/workspaces/default/lock/l", 200, "{}");

    assertThat(run("state", "push", "s.tfstate")).isEqualTo(1);

    assertThat(requests).last().asString().startsWith("DELETE /api/v1/workspaces/default/lock/l");
    assertThat(err()).contains("Error: the lineage differs\n  stored lineage abc\n");
    assertThat(out()).isEmpty();
  }

  @Test
  void aWriteRefusedByTheLockNamesTheHolder() {
    answer(
        "POST /api/v1/workspaces/default/state/rollback",
        423,
        "{\"ID\":\"other\",\"Who\":\"bob@host\",\"Operation\":\"OperationTypeApply\"}");

    assertThat(run("state", "rollback", "-lock-id=mine", "4")).isEqualTo(1);

    assertThat(err())
        .contains(
            "Error: the workspace is locked. Lock Info: ID other, who bob@host,"
                + " operation OperationTypeApply");
  }

  @Test
  void wrongArgumentsAreUsageErrorsAndSendNothing() {
    assertThat(run("state", "diff", "3")).isEqualTo(1);
    assertThat(run("state", "rollback", "latest")).isEqualTo(1);
    assertThat(run("state", "versions", "-force")).isEqualTo(1);

    assertThat(requests).isEmpty();
    assertThat(err())
        .contains("expected 2 argument(s), got 1")
        .contains("'latest' is not a state serial (see state versions)")
        .contains("unknown option -force");
  }
}
