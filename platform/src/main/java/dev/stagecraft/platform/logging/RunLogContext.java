package dev.stagecraft.platform.logging;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import org.slf4j.MDC;

/**
 * Puts a run's ids in the logging context (SLF4J's MDC) of the current thread for the lines logged
 * while it is open, so a JSON log line about a run names it ({@code STAGECRAFT_LOG_FORMAT=json},
 * docs/operations.md "Logs"): {@code tenant}, {@code workspace}, {@code run} and {@code action}
 * (absent ids are left out), and {@code trace}, the id of the trace the thread's current span is
 * part of when tracing is on (ADR 0083), so a person can go from a log line to its trace. Closing
 * it removes them again.
 *
 * <p>Thread-confined: open and close it on the same thread (try-with-resources).
 */
public final class RunLogContext implements AutoCloseable {
  private static final String[] KEYS = {"tenant", "workspace", "run", "action", "trace"};

  private RunLogContext() {}

  /** Opens the context of one run's work on this thread; {@code action} may be null. */
  public static RunLogContext open(String tenant, String workspace, String run, String action) {
    String[] values = {tenant, workspace, run, action};
    for (int i = 0; i < values.length; i++) {
      if (values[i] != null) {
        MDC.put(KEYS[i], values[i]);
      }
    }
    return new RunLogContext().withCurrentTrace();
  }

  /**
   * Names the trace of the thread's current span (when there is one: tracing on and a span
   * current); call it again once the work's own span was made current after {@link #open}.
   */
  public RunLogContext withCurrentTrace() {
    SpanContext span = Span.current().getSpanContext();
    if (span.isValid()) {
      MDC.put("trace", span.getTraceId());
    }
    return this;
  }

  @Override
  public void close() {
    for (String key : KEYS) {
      MDC.remove(key);
    }
  }
}
