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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code state show} against a stub state API: attributes listed in {@code sensitive_attributes}
 * and attributes holding sealed values (docs/adr/0024) print as {@code (sensitive value)}.
 */
class StateShowSensitiveTest {
  static final String STATE =
      """
      {"version":4,"serial":3,"lineage":"l","resources":[{"mode":"managed",
       "type":"stateful_provisioning","name":"app","instances":[{"schema_version":0,
       "attributes":{"id":"i-1","state_key":"stagecraft:sealed:v1:k1:AAAA",
                     "triggers":{"pw":"stagecraft:sealed:v1:k1:BBBB","plain":"p"},
                     "tags":{"owner":"pushed-secret-Q1"}},
       "sensitive_attributes":[[{"type":"get_attr","value":"tags"}]]}]}]}
      """;

  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private HttpServer server;

  @BeforeEach
  void startStub() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    server.createContext(
        "/.well-known/stagecraft.json", e -> respond(e, "{\"state\":\"" + base + "/api/v1\"}"));
    server.createContext("/api/v1/workspaces", e -> respond(e, STATE));
    server.start();
  }

  @AfterEach
  void stopStub() {
    server.stop(0);
  }

  private static void respond(HttpExchange e, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().add("Content-Type", "application/json");
    e.sendResponseHeaders(200, bytes.length);
    e.getResponseBody().write(bytes);
    e.close();
  }

  @Test
  void showsSealedAndSensitiveAttributesAsSensitiveValue() {
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
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));

    int code =
        new StagecraftCli()
            .run(new String[] {"state", "show", "stateful_provisioning.app"}, context);

    String shown = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(shown).isZero();
    assertThat(shown)
        .contains("state_key = (sensitive value)")
        .contains("triggers  = (sensitive value)")
        .contains("tags      = (sensitive value)")
        .contains("\"i-1\"")
        .doesNotContain("stagecraft:sealed")
        .doesNotContain("pushed-secret-Q1");
  }
}
