package dev.stagecraft.platform.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TraceHeadersTest {
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
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
  void theConsumerSpanIsAChildOfThePublishingSpanThroughRecordHeaders() {
    RecordHeaders headers = new RecordHeaders();
    Span dispatch = Tracing.tracer().spanBuilder("dispatch").startSpan();
    try (Scope ignored = dispatch.makeCurrent()) {
      TraceHeaders.inject(Context.current(), headers);
    } finally {
      dispatch.end();
    }
    assertThat(headers.lastHeader("traceparent")).isNotNull();

    SpanContext remote = TraceHeaders.extract(headers);
    Span consumer = TraceHeaders.startConsumer("stagecraft.actions", remote, false);
    consumer.end();

    SpanData handled = finished("stagecraft.actions process");
    assertThat(handled.getTraceId()).isEqualTo(dispatch.getSpanContext().getTraceId());
    assertThat(handled.getParentSpanId()).isEqualTo(dispatch.getSpanContext().getSpanId());
    assertThat(handled.getParentSpanContext().isRemote()).isTrue();
  }

  @Test
  void aMalformedTraceparentIsIgnoredAndTheConsumerSpanStartsATrace() {
    for (String bad :
        new String[] {
          "garbage",
          "00-00000000000000000000000000000000-0000000000000000-01",
          "00-" + "a".repeat(32) + "-" + "b".repeat(16),
          "00-" + "z".repeat(32) + "-" + "b".repeat(16) + "-01",
          "x".repeat(5000)
        }) {
      RecordHeaders headers = new RecordHeaders();
      headers.add("traceparent", bad.getBytes(StandardCharsets.UTF_8));
      assertThat(TraceHeaders.extract(headers).isValid()).as(bad).isFalse();
    }
    RecordHeaders binary = new RecordHeaders();
    binary.add("traceparent", new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
    SpanContext remote = TraceHeaders.extract(binary);
    assertThat(remote.isValid()).isFalse();
    TraceHeaders.startConsumer("stagecraft.actions", remote, false).end();
    SpanData handled = finished("stagecraft.actions process");
    assertThat(handled.getParentSpanContext().isValid()).isFalse();
  }

  @Test
  void anOutsideTraceIsOnlyLinkedNeverAParent() {
    Map<String, String> http = new HashMap<>();
    Span tenant = Tracing.tracer().spanBuilder("tenant").startSpan();
    TraceHeaders.inject(Context.root().with(tenant), http::put);
    tenant.end();
    SpanContext remote = TraceHeaders.extract(http);
    assertThat(remote.getTraceId()).isEqualTo(tenant.getSpanContext().getTraceId());

    TraceHeaders.startConsumer("stagecraft.run-requests", remote, true).end();
    SpanData handled = finished("stagecraft.run-requests process");
    assertThat(handled.getTraceId()).isNotEqualTo(tenant.getSpanContext().getTraceId());
    assertThat(handled.getParentSpanContext().isValid()).isFalse();
    assertThat(handled.getLinks()).hasSize(1);
    assertThat(handled.getLinks().get(0).getSpanContext().getSpanId())
        .isEqualTo(tenant.getSpanContext().getSpanId());
  }

  @Test
  void withoutAnEndpointTracingIsTheNoOpAndInjectsNothing() {
    Tracing.install(Tracing.fromEnvironment("test", Map.of()));
    assertThat(Tracing.enabled()).isFalse();
    Span span = Tracing.tracer().spanBuilder("x").startSpan();
    assertThat(span.getSpanContext().isValid()).isFalse();
    RecordHeaders headers = new RecordHeaders();
    TraceHeaders.inject(Context.current().with(span), headers);
    assertThat(headers.toArray()).isEmpty();
  }

  private SpanData finished(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
