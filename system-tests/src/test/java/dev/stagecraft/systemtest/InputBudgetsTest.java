package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input has a budget, through the real planner (docs/runs.md "Limits", docs/planning.md
 * "Budgets"): a tar.gz bomb, an unsigned or oversized webhook body, numbers out of range and a
 * configuration over the instance limit are each refused with a problem document naming the limit.
 */
class InputBudgetsTest {
  static SharedStack stack;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest.Builder api(String path) {
    return HttpRequest.newBuilder(URI.create(stack.plannerUrl() + "/api/v1" + path))
        .header("Authorization", "Bearer " + stack.token());
  }

  static JsonNode problem(HttpResponse<String> response, int status) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
    return EventCodec.mapper().readTree(response.body());
  }

  /** main.tf, then one entry of a gibibyte of zeros, gzip-compressed as it is written. */
  static byte[] bomb() throws IOException {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(compressed, 1 << 16)) {
      byte[] main =
          "resource \"stateful_provisioning\" \"a\" {\n  state_key = \"1\"\n}\n"
              .getBytes(StandardCharsets.UTF_8);
      out.write(header("main.tf", main.length));
      out.write(main);
      out.write(new byte[512 - main.length]);
      long size = 1L << 30;
      out.write(header("zeros.bin", size));
      byte[] chunk = new byte[1 << 20];
      for (long left = size; left > 0; left -= chunk.length) {
        out.write(chunk);
      }
      out.write(new byte[1024]);
    }
    return compressed.toByteArray();
  }

  static byte[] header(String name, long size) {
    byte[] header = new byte[512];
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(n, 0, header, 0, n.length);
    byte[] s = String.format("%011o", size).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(s, 0, header, 124, s.length);
    header[156] = '0';
    return header;
  }

  @Test
  void aTarGzBombIsRefused413NamingTheLimit() throws Exception {
    byte[] bomb = bomb();
    JsonNode p =
        problem(
            send(
                api("/configuration-versions")
                    .header("Content-Type", "application/gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(bomb))),
            413);
    assertThat(p.get("title").asText()).isEqualTo("Configuration too large");
    assertThat(p.get("detail").asText())
        .contains("more than 10 MiB of files")
        .contains("zeros.bin");
  }

  @Test
  void aWebhookBodyThatIsNotJsonIsRefusedAsUnsignedAndAnOversizedOneUnread() throws Exception {
    HttpRequest.Builder hook =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + "/api/v1/hooks/run-requests"))
            .header("Content-Type", "application/cloudevents+json")
            .header("stagecraft-timestamp", Long.toString(System.currentTimeMillis() / 1000))
            .header("stagecraft-signature", "sha256=00");
    JsonNode garbage =
        problem(send(hook.POST(HttpRequest.BodyPublishers.ofString("<<not json"))), 401);
    assertThat(garbage.get("detail").asText())
        .contains("signature")
        .doesNotContain("CloudEvent with");
    JsonNode huge =
        problem(send(hook.POST(HttpRequest.BodyPublishers.ofByteArray(new byte[2 << 20]))), 413);
    assertThat(huge.get("detail").asText()).contains("above the limit of 1048576 bytes");
  }

  @Test
  void numbersOutOfRangeAre400NamingTheRange() throws Exception {
    String body =
        """
        {"workspace": "budgets", "parallelism": 100000,
         "files": {"main.tf": "resource \\"stateful_provisioning\\" \\"a\\" { state_key = \\"1\\" }"}}
        """;
    JsonNode parallelism =
        problem(
            send(
                api("/runs")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))),
            400);
    assertThat(parallelism.get("detail").asText())
        .isEqualTo("parallelism must be from 1 to 256; got 100000.");
    JsonNode wait = problem(send(api("/runs/run-x/events?wait=3600").GET()), 400);
    assertThat(wait.get("detail").asText()).isEqualTo("wait must be from 0 to 30; got 3600.");
    JsonNode overflow = problem(send(api("/runs?size=99999999999").GET()), 400);
    assertThat(overflow.get("detail").asText()).contains("size");
  }

  @Test
  void aPlanOverTheInstanceLimitIs422AtTheCount() throws Exception {
    String body =
        """
        {"workspace": "budgets",
         "files": {"main.tf": "resource \\"stateful_provisioning\\" \\"a\\" {\\n  state_key = \\"1\\"\\n  count = 200000\\n}\\n"}}
        """;
    JsonNode p =
        problem(
            send(
                api("/plans")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))),
            422);
    JsonNode d = p.get("diagnostics").get(0);
    assertThat(d.get("range").asText()).isEqualTo("main.tf:3:11");
    assertThat(d.get("detail").asText())
        .startsWith("count is 200000, above the limit of 10000 instances per resource.");
  }
}
