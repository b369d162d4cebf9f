package dev.stagecraft.servicekit.tracing;

import dev.stagecraft.platform.tracing.TraceHeaders;
import dev.stagecraft.platform.tracing.Tracing;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.http.BasicHttpAttributes;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.HashMap;
import java.util.Map;
import org.reactivestreams.Publisher;

/**
 * A server span per HTTP request, child of the caller's span named in its {@code traceparent}
 * header when the route is internal (another service's {@code InternalHttp} client span), linked to
 * it on a public route (a tenant's context never parents our spans); a malformed header is ignored;
 * docs/adr/0083. The span's name is the method and the matched route template when there is one (a
 * bounded set: never a path with ids in it). Nothing is done while tracing is off. Each service
 * declares a subclass annotated {@code @Filter("/**")} (service-kit declares no beans).
 *
 * <p>Thread-safe: stateless; the span is ended when the response is emitted, on whatever thread.
 */
public class TraceServerFilter implements HttpServerFilter {
  private static final String SPAN = "stagecraft.trace.span";
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  private static final AttributeKey<Long> STATUS =
      AttributeKey.longKey("http.response.status_code");

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(
      HttpRequest<?> request, ServerFilterChain chain) {
    if (!Tracing.enabled()) {
      return chain.proceed(request);
    }
    Map<String, String> headers = new HashMap<>();
    for (String name : new String[] {TraceHeaders.TRACEPARENT, TraceHeaders.TRACESTATE}) {
      String value = request.getHeaders().get(name);
      if (value != null) {
        headers.put(name, value);
      }
    }
    SpanContext remote = TraceHeaders.extract(headers);
    String method = request.getMethodName();
    SpanBuilder builder =
        Tracing.tracer()
            .spanBuilder(method + " " + route(request))
            .setSpanKind(SpanKind.SERVER)
            .setAttribute(METHOD, method);
    if (remote.isValid() && fromAService(request.getPath())) {
      builder.setParent(Context.root().with(Span.wrap(remote)));
    } else {
      // a tenant's request: its context is a link, never our parent (ADR 0083 point 5)
      builder.setNoParent();
      if (remote.isValid()) {
        builder.addLink(remote);
      }
    }
    Span span = builder.startSpan();
    request.setAttribute(SPAN, span);
    Publisher<MutableHttpResponse<?>> response;
    try (Scope ignored = span.makeCurrent()) {
      response = chain.proceed(request);
    } catch (RuntimeException e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      span.end();
      throw e;
    }
    return Publishers.map(
        response,
        r -> {
          span.setAttribute(STATUS, (long) r.code());
          if (r.code() >= 500) {
            span.setStatus(StatusCode.ERROR);
          }
          span.end();
          return r;
        });
  }

  /**
   * Whether a request to {@code path} comes from another service of the platform (its internal
   * routes, which only service credentials reach), whose trace context the server span continues;
   * the public routes are tenants' and only link theirs.
   */
  static boolean fromAService(String path) {
    return path.startsWith("/internal/");
  }

  /**
   * The server span of {@code request} (invalid with tracing off), for a controller that makes it
   * current around work that should know its trigger: the controller may run on another thread than
   * the filter.
   */
  public static Span spanOf(HttpRequest<?> request) {
    return request.getAttribute(SPAN, Span.class).orElse(Span.getInvalid());
  }

  private static String route(HttpRequest<?> request) {
    return BasicHttpAttributes.getUriTemplate(request).orElse(firstSegments(request.getPath()));
  }

  /** The span name of a call to {@code path}: its method and first two segments (no ids). */
  public static String spanName(String method, String path) {
    return method + " " + firstSegments(path);
  }

  /** The path's first two segments ({@code /internal/locks}): no ids. */
  private static String firstSegments(String path) {
    int slashes = 0;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/' && ++slashes == 3) {
        return path.substring(0, i);
      }
    }
    return path;
  }
}
