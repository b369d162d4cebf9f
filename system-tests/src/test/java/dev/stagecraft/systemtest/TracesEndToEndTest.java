package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.StackService;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.systemtest.OtlpReceiver.ReceivedSpan;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code OTEL_EXPORTER_OTLP_ENDPOINT} pointing at a local OTLP/HTTP receiver, one run is one
 * trace (docs/adr/0083): its spans come from the planner, the executor and the state service, every
 * span's parent is in the trace (the context crossed Kafka and HTTP), the executor's step descends
 * from the planner's dispatch of its action, and the run's {@code traceId} in the API is the
 * trace's id.
 */
class TracesEndToEndTest {
  private static OtlpReceiver receiver;
  private static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    receiver = new OtlpReceiver();
    stack =
        SharedStack.dedicated(
            "traces",
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                receiver.endpoint(),
                "OTEL_BSP_SCHEDULE_DELAY",
                "200",
                "STAGECRAFT_LOG_FORMAT",
                "json"));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  @Test
  void oneRunIsOneTraceAcrossPlannerExecutorAndStateService() throws Exception {
    String ws = "traces-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir =
        stack.configDir(
            ws,
            """
            resource "terraform_data" "a" {
              provisioner "local-exec" {
                command = "echo traced"
              }
            }
            """);
    CliResult applied = stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();

    PlannerApi api = new PlannerApi(stack);
    JsonNode runs = EventCodec.mapper().readTree(api.get("/api/v1/runs?workspace=" + ws));
    JsonNode list = runs.isArray() ? runs : runs.path("runs");
    String runId = list.get(0).get("id").asText();
    JsonNode run = EventCodec.mapper().readTree(api.get("/api/v1/runs/" + runId));
    String traceId = run.path("traceId").asText("");
    assertThat(traceId).as(run.toString()).matches("[0-9a-f]{32}");

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(services(trace(traceId)))
                    .contains("planner-service", "executor-service", "state-service"));
    // the exporters flush every 200 ms: let the last batches of the run's spans arrive
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(orphans(trace(traceId))).isEmpty());

    List<ReceivedSpan> trace = trace(traceId);
    assertThat(trace.stream().filter(s -> s.parentSpanId().isEmpty()).map(ReceivedSpan::name))
        .as("one root: the run's")
        .containsExactly("run");
    assertThat(trace)
        .extracting(ReceivedSpan::name)
        .contains("lock acquire", "planner OpenRun", "planner Plan", "planner Dispatch");
    ReceivedSpan root =
        trace.stream().filter(s -> s.name().equals("run")).findFirst().orElseThrow();
    assertThat(root.links()).as("the run's trigger: the API request that started it").hasSize(1);
    assertThat(receiver.spans())
        .anySatisfy(
            s -> {
              assertThat(s.spanId()).isEqualTo(root.links().get(0));
              assertThat(s.service()).isEqualTo("planner-service");
              assertThat(s.name()).startsWith("POST ");
            });
    Map<String, ReceivedSpan> byId =
        trace.stream().collect(Collectors.toMap(ReceivedSpan::spanId, Function.identity()));
    ReceivedSpan step =
        trace.stream()
            .filter(s -> s.service().equals("executor-service") && s.name().startsWith("step "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no step span in " + trace));
    assertThat(ancestors(step, byId))
        .anySatisfy(
            a -> {
              assertThat(a.service()).isEqualTo("planner-service");
              assertThat(a.name()).isEqualTo("dispatch terraform_data.a");
            });
    assertThat(trace)
        .anySatisfy(
            s -> {
              assertThat(s.service()).isEqualTo("state-service");
              assertThat(ancestors(s, byId)).anyMatch(a -> a.service().equals("executor-service"));
            });
    assertThat(trace)
        .anySatisfy(
            s -> {
              assertThat(s.service()).isEqualTo("lock-service");
              assertThat(byId.get(s.parentSpanId()).service()).isEqualTo("planner-service");
            });

    // a JSON log line about the run names its trace (docs/operations.md "Logs"); the executor logs
    // each action it runs (the planner, a run that goes well on its thread: nothing)
    Path log = stack.stack().layout().serviceLog(StackService.EXECUTOR);
    assertThat(Files.readAllLines(log).stream().filter(l -> l.startsWith("{")))
        .anySatisfy(
            l -> {
              JsonNode line = EventCodec.mapper().readTree(l);
              assertThat(line.at("/mdc/run").asText()).isEqualTo(runId);
              assertThat(line.at("/mdc/trace").asText()).isEqualTo(traceId);
            });
  }

  @Test
  void aTenantsTraceContextIsLinkedNeverContinued() throws Exception {
    // a tenant's request names a trace of its choosing: the planner's span starts a trace of its
    // own and links the tenant's span, so no tenant picks our trace ids (ADR 0083 point 5)
    String forgedTrace = "0af7651916cd43dd8448eb211c80319c";
    String forgedSpan = "b7ad6b7169203331";
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(stack.stack().info().planner() + "/api/v1/runs?workspace=none"))
                    .header("Authorization", "Bearer " + stack.token())
                    .header("traceparent", "00-" + forgedTrace + "-" + forgedSpan + "-01")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(receiver.spans())
                    .anySatisfy(
                        s -> {
                          assertThat(s.service()).isEqualTo("planner-service");
                          assertThat(s.links()).containsExactly(forgedSpan);
                          assertThat(s.parentSpanId()).isEmpty();
                        }));
    assertThat(receiver.spans()).noneMatch(s -> s.traceId().equals(forgedTrace));
  }

  private static List<ReceivedSpan> trace(String traceId) {
    return receiver.spans().stream().filter(s -> s.traceId().equals(traceId)).toList();
  }

  private static Set<String> services(List<ReceivedSpan> trace) {
    return trace.stream().map(ReceivedSpan::service).collect(Collectors.toSet());
  }

  /** Spans whose parent is not in the trace. */
  private static List<ReceivedSpan> orphans(List<ReceivedSpan> trace) {
    Set<String> ids = trace.stream().map(ReceivedSpan::spanId).collect(Collectors.toSet());
    return trace.stream()
        .filter(s -> !s.parentSpanId().isEmpty() && !ids.contains(s.parentSpanId()))
        .toList();
  }

  private static List<ReceivedSpan> ancestors(ReceivedSpan span, Map<String, ReceivedSpan> byId) {
    List<ReceivedSpan> out = new ArrayList<>();
    ReceivedSpan at = byId.get(span.parentSpanId());
    while (at != null && out.size() < 100) {
      out.add(at);
      at = byId.get(at.parentSpanId());
    }
    return out;
  }
}
