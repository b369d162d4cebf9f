package dev.stagecraft.platform.logging;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** {@link RunLogContext}: a run's ids, and its trace's when a span is current, while it is open. */
class RunLogContextTest {
  private static final String TRACE = "5ca7f9f173eca2eb9965c92acb3af691";

  @Test
  void namesTheRunWhileOpenAndNothingAfter() {
    try (RunLogContext context = RunLogContext.open("acme", "web", "run-1", null)) {
      assertThat(MDC.getCopyOfContextMap())
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("tenant", "acme", "workspace", "web", "run", "run-1"));
    }
    assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
  }

  @Test
  void namesTheTraceOfTheCurrentSpanAlsoWhenItBecameCurrentAfterTheOpen() {
    try (RunLogContext context = RunLogContext.open("acme", "web", "run-1", "run-1/a")) {
      assertThat(MDC.get("trace")).as("no span current").isNull();
      try (Scope scope = span().makeCurrent()) {
        context.withCurrentTrace();
        assertThat(MDC.get("trace")).isEqualTo(TRACE);
        assertThat(MDC.get("action")).isEqualTo("run-1/a");
      }
    }
    assertThat(MDC.get("trace")).isNull();
    try (Scope scope = span().makeCurrent();
        RunLogContext context = RunLogContext.open("acme", "web", "run-2", null)) {
      assertThat(MDC.get("trace")).isEqualTo(TRACE);
    }
  }

  private static Span span() {
    return Span.wrap(
        SpanContext.create(
            TRACE, "9965c92acb3af691", TraceFlags.getSampled(), TraceState.getDefault()));
  }
}
