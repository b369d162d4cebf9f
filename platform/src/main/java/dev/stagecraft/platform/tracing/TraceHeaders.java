package dev.stagecraft.platform.tracing;

import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * W3C trace context ({@code traceparent}, {@code tracestate}) in Kafka record headers and in any
 * string-keyed carrier (HTTP headers), docs/adr/0083. Extraction never fails: a missing, malformed,
 * oversized or non-UTF-8 header yields no parent. Stateless; thread-safe.
 */
public final class TraceHeaders {
  public static final String TRACEPARENT = "traceparent";
  public static final String TRACESTATE = "tracestate";
  // a valid traceparent is 55 characters; tracestate is at most 32 members of 256: refuse the rest
  private static final int MAX_LENGTH = 1024;
  private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  private static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  private static final AttributeKey<String> EVENT_TYPE =
      AttributeKey.stringKey("stagecraft.event.type");

  private static final TextMapGetter<Map<String, String>> MAP_GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : bounded(carrier.get(key));
        }
      };

  private TraceHeaders() {}

  /** Adds the trace context of {@code context} to {@code headers} (nothing without a span). */
  public static void inject(Context context, Headers headers) {
    if (!Span.fromContext(context).getSpanContext().isValid()) {
      return;
    }
    TextMapSetter<Headers> setter =
        (carrier, key, value) -> {
          carrier.remove(key);
          carrier.add(key, value.getBytes(StandardCharsets.UTF_8));
        };
    W3CTraceContextPropagator.getInstance().inject(context, headers, setter);
  }

  /** Calls {@code put} with the trace headers of {@code context} (for HTTP requests). */
  public static void inject(Context context, BiConsumer<String, String> put) {
    if (!Span.fromContext(context).getSpanContext().isValid()) {
      return;
    }
    W3CTraceContextPropagator.getInstance()
        .inject(context, put, (carrier, key, value) -> carrier.accept(key, value));
  }

  /**
   * The remote span context in {@code headers}; {@link SpanContext#getInvalid()} when there is none
   * or it is malformed.
   */
  public static SpanContext extract(Headers headers) {
    Map<String, String> values = new HashMap<>();
    for (String name : List.of(TRACEPARENT, TRACESTATE)) {
      Header h = headers == null ? null : headers.lastHeader(name);
      if (h != null && h.value() != null && h.value().length <= MAX_LENGTH) {
        values.put(name, new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return extract(values);
  }

  /** The remote span context in a header map (lower-case names), invalid when none or malformed. */
  public static SpanContext extract(Map<String, String> values) {
    if (values == null || values.get(TRACEPARENT) == null) {
      return SpanContext.getInvalid();
    }
    try {
      Context c =
          W3CTraceContextPropagator.getInstance().extract(Context.root(), values, MAP_GETTER);
      return Span.fromContext(c).getSpanContext();
    } catch (RuntimeException e) {
      return SpanContext.getInvalid(); // a malformed header never fails the event
    }
  }

  private static String bounded(String value) {
    return value == null || value.length() > MAX_LENGTH ? null : value;
  }

  /**
   * Starts the span of handling a record of {@code topic} whose producer's span is {@code remote}:
   * its child, or, with {@code linkOnly} (records from outside the platform: a tenant's chat-ops
   * event), a new trace linked to it. Not current; the caller makes it current and ends it.
   */
  public static Span startConsumer(String topic, SpanContext remote, boolean linkOnly) {
    SpanBuilder builder =
        Tracing.tracer()
            .spanBuilder(topic + " process")
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(SYSTEM, "kafka")
            .setAttribute(DESTINATION, topic);
    if (remote.isValid() && !linkOnly) {
      builder.setParent(Context.root().with(Span.wrap(remote)));
    } else {
      builder.setNoParent();
      if (remote.isValid()) {
        builder.addLink(remote);
      }
    }
    return builder.startSpan();
  }

  /** Names the run's ids (tenant, workspace, run, subject; never data) on {@code span}. */
  public static void describe(Span span, EventEnvelope event) {
    if (!span.isRecording()) {
      return;
    }
    span.setAttribute(EVENT_TYPE, event.type());
    span.setAttribute(Tracing.TENANT, event.tenant());
    if (event.workspace() != null) {
      span.setAttribute(Tracing.WORKSPACE, event.workspace());
    }
    if (event.runid() != null) {
      span.setAttribute(Tracing.RUN, event.runid());
    }
  }

  /** The {@code traceparent} of {@code context}'s span, or null without a valid one. */
  public static String traceparent(Context context) {
    List<String> out = new ArrayList<>(1);
    inject(
        context,
        (k, v) -> {
          if (k.equals(TRACEPARENT)) {
            out.add(v);
          }
        });
    return out.isEmpty() ? null : out.get(0);
  }
}
