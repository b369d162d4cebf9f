package dev.stagecraft.planner.service.adapter;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.stagecraft.planner.service.run.driver.RunTracing;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.platform.tracing.TraceHeaders;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The planner's side of one trace per run (docs/adr/0083). Each run has a root span {@code run}
 * (started and ended when the run is first seen: a marker whose context every later span of the run
 * descends from; linked to the span of the request or event that started the run when there is
 * one), its traceparent persisted with the run ({@code planner.runs.trace_parent}), so a planner
 * that resumes or adopts the run continues the same trace. On the run's thread the root's context
 * is current; each effect the run carries out (lock, open, plan, dispatch, record outputs, close)
 * is a span {@code planner <Effect>} with tenant, workspace and run ids; each dispatched action a
 * span {@code dispatch <address>} whose context goes out in the record's headers. The HTTP calls to
 * the lock and state services are client spans under these.
 *
 * <p>Thread-safe: the roots are a bounded concurrent cache; spans are per call. With tracing off
 * every method returns at once and nothing is cached.
 */
public final class RunTraces implements RunTracing {
  private static final AttributeKey<Long> ACTIONS = AttributeKey.longKey("stagecraft.actions");
  // bookkeeping effects that would only add noise to the trace
  private static final Set<Class<?>> QUIET =
      Set.of(
          RunEffect.RecordTransition.class,
          RunEffect.PublishTransition.class,
          RunEffect.StartHeartbeat.class,
          RunEffect.StopHeartbeat.class,
          RunEffect.RecordRequest.class);

  private final Cache<String, SpanContext> roots =
      Caffeine.newBuilder().maximumSize(100_000).expireAfterAccess(Duration.ofHours(12)).build();
  private final Function<String, String> stored;

  /**
   * @param stored the traceparent recorded for a run id, or null (a run new to the records)
   */
  public RunTraces(Function<String, String> stored) {
    this.stored = stored;
  }

  /** The span context of the run's root (created on first use); invalid with tracing off. */
  public SpanContext root(String runId) {
    if (!Tracing.enabled()) {
      return SpanContext.getInvalid();
    }
    return roots.get(runId, id -> open(id, SpanContext.getInvalid()));
  }

  private SpanContext open(String runId, SpanContext trigger) {
    String recorded = stored.apply(runId);
    if (recorded != null) {
      SpanContext known = TraceHeaders.extract(Map.of(TraceHeaders.TRACEPARENT, recorded));
      if (known.isValid()) {
        return known;
      }
    }
    SpanBuilder builder =
        Tracing.tracer().spanBuilder("run").setNoParent().setAttribute(Tracing.RUN, runId);
    if (trigger.isValid()) {
      builder.addLink(trigger); // the request or event that started the run: linked, not a parent
    }
    Span root = builder.startSpan();
    root.end();
    return root.getSpanContext();
  }

  /** The traceparent of the run's root, for its record; null with tracing off. */
  public String traceParent(String runId) {
    SpanContext root = root(runId);
    return root.isValid() ? TraceHeaders.traceparent(Context.root().with(Span.wrap(root))) : null;
  }

  /** The run's thread starts in the context of the thread that started the run (its trigger). */
  @Override
  public Runnable carry(Runnable body) {
    return Tracing.enabled() ? Context.current().wrap(body) : body;
  }

  // the scope is closed by the mark, which the driver closes on the same thread
  // (try-with-resources)
  @SuppressWarnings("MustBeClosedChecker")
  @Override
  public Mark enter(String tenant, String workspace, String runId) {
    if (!Tracing.enabled()) {
      return NO_MARK;
    }
    SpanContext trigger = Span.current().getSpanContext(); // carried from the starting thread
    SpanContext root = roots.get(runId, id -> open(id, trigger));
    Scope scope = Context.root().with(Span.wrap(root)).makeCurrent();
    return scope::close;
  }

  // as for enter: the mark closes the scope, on the thread that opened it
  @SuppressWarnings("MustBeClosedChecker")
  @Override
  public Mark effect(RunEffect effect, RunState state) {
    if (!Tracing.enabled() || QUIET.contains(effect.getClass())) {
      return NO_MARK;
    }
    Span span =
        Tracing.tracer()
            .spanBuilder("planner " + effect.getClass().getSimpleName())
            .setParent(Context.root().with(Span.wrap(root(state.runId()))))
            .setAttribute(Tracing.TENANT, state.settings().tenant())
            .setAttribute(Tracing.WORKSPACE, state.settings().workspace())
            .setAttribute(Tracing.RUN, state.runId())
            .startSpan();
    if (effect instanceof RunEffect.Dispatch d) {
      span.setAttribute(ACTIONS, (long) d.actions().size());
    }
    Scope scope = span.makeCurrent();
    return () -> {
      scope.close();
      span.end();
    };
  }

  /**
   * Publishes {@code event} with {@code send}: an {@code action.dispatched} inside its own span
   * {@code dispatch <address>} (the executor's spans are its children), anything else as it is.
   */
  static <T> T publishing(EventEnvelope event, Supplier<T> send) {
    if (!Tracing.enabled() || !event.type().endsWith(".action.dispatched")) {
      return send.get();
    }
    Span span =
        Tracing.tracer()
            .spanBuilder("dispatch " + event.subject())
            .setAttribute(Tracing.TENANT, event.tenant())
            .setAttribute(Tracing.RUN, String.valueOf(event.runid()))
            .setAttribute(Tracing.ACTION, event.id())
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return send.get();
    } finally {
      span.end();
    }
  }
}
