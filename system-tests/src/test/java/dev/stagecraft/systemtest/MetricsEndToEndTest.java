package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.devstack.StackInfo;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every service serves Prometheus text at {@code /prometheus} without a token (docs/operations.md
 * "Metrics"), and one applied run moves the counters and histograms by what it did: one run started
 * and one ended applied, its steps timed by provisioner type, its lock wait recorded, the state
 * service's appends timed (and the size of each state document it receives or serves); JVM,
 * connection-pool and Kafka client metrics are there too.
 */
class MetricsEndToEndTest {
  private static SharedStack stack;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void oneRunMovesEveryServicesMetricsByWhatItDid() throws Exception {
    String ws = "metrics-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir =
        stack.configDir(
            ws,
            """
            resource "terraform_data" "a" {
              provisioner "local-exec" {
                command = "echo a"
              }
            }
            resource "terraform_data" "b" {
              provisioner "local-exec" {
                command = "echo b1"
              }
              provisioner "local-exec" {
                command = "echo b2"
              }
            }
            """);
    Map<String, PrometheusText> before = scrapeAll();

    CliResult applied = stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();

    // the run's last records (its end, the freed slot) may land just after the CLI returned
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertMoved(before, scrapeAll()));
  }

  @Test
  void theStateServiceRecordsTheSizeOfEachDocumentItReceivesAndServes() throws Exception {
    String ws = "metrics-doc-" + UUID.randomUUID().toString().substring(0, 8);
    byte[] document =
        ("{\"version\":4,\"terraform_version\":\"1.9.0\",\"serial\":3,\"lineage\":\""
                + UUID.randomUUID()
                + "\",\"outputs\":{\"size\":{\"value\":\""
                + "x".repeat(1000)
                + "\",\"type\":\"string\"}},\"resources\":[],\"check_results\":null}")
            .getBytes(StandardCharsets.UTF_8);
    String auth =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("stagecraft:" + stack.token()).getBytes(StandardCharsets.UTF_8));
    URI state = URI.create(stack.stack().info().state() + "/tf/v1/workspaces/" + ws + "/state");
    PrometheusText before = scrape(stack.stack().info().state());

    HttpResponse<String> pushed =
        http.send(
            HttpRequest.newBuilder(state)
                .header("Authorization", auth)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(document))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(200);
    HttpResponse<byte[]> pulled =
        http.send(
            HttpRequest.newBuilder(state).header("Authorization", auth).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(pulled.statusCode()).isEqualTo(200);

    PrometheusText after = scrape(stack.stack().info().state());
    String size = "stagecraft_state_document_size_bytes";
    Map<String, String> push = Map.of("operation", "push");
    Map<String, String> read = Map.of("operation", "read");
    assertThat(delta(before, after, size + "_count", push)).isEqualTo(1);
    assertThat(delta(before, after, size + "_sum", push)).isEqualTo(document.length);
    assertThat(delta(before, after, size + "_count", read)).isEqualTo(1);
    assertThat(delta(before, after, size + "_sum", read)).isEqualTo(pulled.body().length);
  }

  private static void assertMoved(
      Map<String, PrometheusText> before, Map<String, PrometheusText> after) {
    PrometheusText planner0 = before.get("planner");
    PrometheusText planner1 = after.get("planner");
    assertThat(delta(planner0, planner1, "stagecraft_runs_started_total", Map.of())).isEqualTo(1);
    assertThat(
            delta(planner0, planner1, "stagecraft_runs_ended_total", Map.of("status", "applied")))
        .isEqualTo(1);
    assertThat(delta(planner0, planner1, "stagecraft_run_trigger_to_apply_seconds_count", Map.of()))
        .isEqualTo(1);
    assertThat(planner1.sum("stagecraft_runs_active")).isZero();

    PrometheusText executor0 = before.get("executor");
    PrometheusText executor1 = after.get("executor");
    Map<String, String> localExecOk = Map.of("provisioner", "local-exec", "outcome", "succeeded");
    assertThat(delta(executor0, executor1, "stagecraft_step_duration_seconds_count", localExecOk))
        .isEqualTo(3);
    assertThat(delta(executor0, executor1, "stagecraft_step_duration_seconds_count", Map.of()))
        .isEqualTo(3);
    assertThat(
            delta(
                executor0,
                executor1,
                "stagecraft_action_dispatch_to_started_seconds_count",
                Map.of()))
        .isEqualTo(2);
    assertThat(executor1.sum("stagecraft_executor_slots")).isPositive();
    assertThat(executor1.sum("stagecraft_executor_slots_in_use")).isZero();

    PrometheusText lock0 = before.get("lock");
    PrometheusText lock1 = after.get("lock");
    assertThat(
            delta(lock0, lock1, "stagecraft_lock_wait_seconds_count", Map.of("outcome", "granted")))
        .isGreaterThanOrEqualTo(1);
    assertThat(delta(lock0, lock1, "stagecraft_lock_wait_seconds_sum", Map.of())).isPositive();

    PrometheusText state0 = before.get("state");
    PrometheusText state1 = after.get("state");
    assertThat(delta(state0, state1, "stagecraft_state_append_seconds_count", Map.of()))
        .isEqualTo(2);

    for (var service : after.entrySet()) {
      PrometheusText m = service.getValue();
      assertThat(m.has("jvm_memory_used_bytes")).as(service.getKey()).isTrue();
      assertThat(m.has("http_server_requests_seconds")).as(service.getKey()).isTrue();
      if (!service.getKey().equals("executor")) {
        assertThat(m.has("hikaricp_connections")).as(service.getKey()).isTrue();
      }
      if (!service.getKey().equals("lock")) {
        assertThat(m.has("kafka_consumer_")).as(service.getKey()).isTrue();
      }
    }
  }

  private static double delta(
      PrometheusText before, PrometheusText after, String name, Map<String, String> labels) {
    return after.sum(name, labels) - before.sum(name, labels);
  }

  private Map<String, PrometheusText> scrapeAll() throws Exception {
    StackInfo info = stack.stack().info();
    Map<String, PrometheusText> all = new LinkedHashMap<>();
    all.put("planner", scrape(info.planner()));
    all.put("state", scrape(info.state()));
    all.put("lock", scrape(info.lock()));
    all.put("executor", scrape(info.executor()));
    return all;
  }

  /** {@code GET /prometheus} without a token: 200, the text format, and it parses strictly. */
  private PrometheusText scrape(String baseUrl) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(baseUrl + "/prometheus"))
                .header("Accept", "text/plain; version=0.0.4")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(baseUrl + ": " + r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    return PrometheusText.parse(r.body());
  }
}
