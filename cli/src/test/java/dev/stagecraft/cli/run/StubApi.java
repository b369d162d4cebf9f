package dev.stagecraft.cli.run;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.StagecraftCli;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in planner for commands that only call its JSON API: records each request as {@code
 * "METHOD /path?query BODY"} and answers what the test set for {@code "METHOD /path"} (200 {@code
 * {}} otherwise); runs the CLI in process against it and keeps what it printed.
 */
final class StubApi implements AutoCloseable {
  record Answer(int status, String json) {}

  final HttpServer server;
  final List<String> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  StubApi() throws IOException {
    server = StubPlannerHttp.create();
    String base = StubPlannerHttp.base(server);
    server.removeContext("/.well-known/stagecraft.json");
    server.createContext(
        "/.well-known/stagecraft.json",
        ex ->
            StubPlannerHttp.reply(
                ex,
                200,
                "{\"runs\":\""
                    + base
                    + "/api/v1/runs\",\"workspaces\":\""
                    + base
                    + "/api/v1/workspaces\"}"));
    server.createContext("/api/v1/", this::handle);
    server.start();
  }

  /** What {@code "METHOD /path"} answers. */
  StubApi answer(String request, int status, String json) {
    answers.put(request, new Answer(status, json));
    return this;
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getRawPath();
    String query = ex.getRequestURI().getRawQuery();
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    requests.add(
        ex.getRequestMethod()
            + " "
            + path
            + (query == null ? "" : "?" + query)
            + (body.isEmpty() ? "" : " " + body));
    Answer answer = answers.getOrDefault(ex.getRequestMethod() + " " + path, new Answer(200, "{}"));
    if (answer.status() == 204) {
      ex.sendResponseHeaders(204, -1);
      ex.close();
      return;
    }
    StubPlannerHttp.reply(ex, answer.status(), answer.json());
  }

  /** Runs {@code stagecraft ARGS} in {@code dir} with {@code stdin}; the exit code. */
  int run(Path dir, String stdin, String... args) {
    CliContext context =
        new CliContext(
            dir,
            Map.of(
                "STAGECRAFT_HOME",
                dir.resolve("home").toString(),
                "STAGECRAFT_ADDR",
                StubPlannerHttp.base(server),
                "STAGECRAFT_TOKEN",
                "sc_test"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader(stdin)));
    return new StagecraftCli().run(args, context);
  }

  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
