package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.run.driver.RunTracing;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.platform.tracing.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RunTracesTest {
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final List<String> lookedUp = new ArrayList<>();
  private OpenTelemetrySdk sdk;

  @BeforeEach
  void install() {
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();
    Tracing.install(sdk);
  }

  @AfterEach
  void uninstall() {
    Tracing.install(Tracing.fromEnvironment("test", Map.of()));
    sdk.close();
  }

  @Test
  void aRunHasOneRootAndItsEffectsAreItsChildrenOnItsThread() {
    RunTraces traces = new RunTraces(id -> record(id, null));
    RunState state = RunState.initial("run-1", RunSettings.autoApply("acme", "web"));

    String traceParent = traces.traceParent("run-1");
    assertThat(traces.traceParent("run-1")).isEqualTo(traceParent);
    assertThat(lookedUp).containsExactly("run-1");
    try (RunTracing.Mark entered = traces.enter("acme", "web", "run-1")) {
      assertThat(Span.current().getSpanContext().getTraceId())
          .isEqualTo(traceParent.substring(3, 35));
      try (RunTracing.Mark plan = traces.effect(new RunEffect.Plan(), state)) {
        assertThat(Span.current().getSpanContext().getTraceId())
            .isEqualTo(traceParent.substring(3, 35));
      }
      try (RunTracing.Mark quiet = traces.effect(new RunEffect.StopHeartbeat(), state)) {
        assertThat(quiet).isSameAs(RunTracing.NO_MARK);
      }
    }

    SpanData root = named("run");
    SpanData plan = named("planner Plan");
    assertThat(root.getParentSpanContext().isValid()).isFalse();
    assertThat(traceParent).startsWith("00-" + root.getTraceId() + "-" + root.getSpanId() + "-");
    assertThat(plan.getParentSpanId()).isEqualTo(root.getSpanId());
    assertThat(plan.getAttributes().get(AttributeKey.stringKey("stagecraft.tenant")))
        .isEqualTo("acme");
    assertThat(plan.getAttributes().get(AttributeKey.stringKey("stagecraft.run")))
        .isEqualTo("run-1");
    assertThat(spans.getFinishedSpanItems()).hasSize(2);
  }

  @Test
  void theRootLinksTheTriggerThatStartedTheRunFromAnotherThread() throws Exception {
    RunTraces traces = new RunTraces(id -> record(id, null));
    Span trigger = Tracing.tracer().spanBuilder("POST /api/v1/runs").startSpan();
    AtomicReference<String> onRunThread = new AtomicReference<>();
    Runnable body;
    try (Scope ignored = trigger.makeCurrent()) {
      body =
          traces.carry(
              () -> {
                try (RunTracing.Mark entered = traces.enter("acme", "web", "run-4")) {
                  onRunThread.set(Span.current().getSpanContext().getTraceId());
                }
              });
    } finally {
      trigger.end();
    }
    Thread run = Thread.ofVirtual().start(body);
    run.join();

    SpanData root = named("run");
    assertThat(onRunThread.get()).as("the run's own trace").isEqualTo(root.getTraceId());
    assertThat(root.getTraceId()).isNotEqualTo(trigger.getSpanContext().getTraceId());
    assertThat(root.getParentSpanContext().isValid()).isFalse();
    assertThat(root.getLinks()).hasSize(1);
    assertThat(root.getLinks().get(0).getSpanContext().getSpanId())
        .isEqualTo(trigger.getSpanContext().getSpanId());
  }

  @Test
  void aRecordedRunContinuesItsTraceAfterARestart() {
    String recorded = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    RunTraces traces = new RunTraces(id -> record(id, recorded));
    RunState state = RunState.initial("run-2", RunSettings.autoApply("acme", "web"));

    assertThat(traces.traceParent("run-2")).isEqualTo(recorded);
    try (RunTracing.Mark plan = traces.effect(new RunEffect.Plan(), state)) {
      assertThat(Span.current().getSpanContext().isValid()).isTrue();
    }
    SpanData plan = named("planner Plan");
    assertThat(plan.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(plan.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName).doesNotContain("run");
  }

  @Test
  void withTracingOffNothingIsLookedUpOrRecorded() {
    Tracing.install(Tracing.fromEnvironment("test", Map.of()));
    RunTraces traces = new RunTraces(id -> record(id, null));
    RunState state = RunState.initial("run-3", RunSettings.autoApply("acme", "web"));

    assertThat(traces.traceParent("run-3")).isNull();
    assertThat(traces.enter("acme", "web", "run-3")).isSameAs(RunTracing.NO_MARK);
    assertThat(traces.effect(new RunEffect.Plan(), state)).isSameAs(RunTracing.NO_MARK);
    assertThat(lookedUp).isEmpty();
  }

  private String record(String runId, String traceParent) {
    lookedUp.add(runId);
    return traceParent;
  }

  private SpanData named(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans));
  }
}
