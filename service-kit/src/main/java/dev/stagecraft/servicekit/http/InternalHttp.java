package dev.stagecraft.servicekit.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.platform.tracing.TraceHeaders;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.servicekit.tracing.TraceServerFilter;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Calls {@code /internal/**} endpoints of the other services with the calling service's own role
 * token (docs/internal-api.md, "Service roles"). Transport failures are retried a few times with
 * backoff (the target may be restarting); HTTP answers are returned as they are for the caller to
 * interpret.
 *
 * <p>HTTP/1.1 over kept-alive connections with {@link HttpURLConnection}, which does the whole
 * exchange on the calling thread (a run's virtual thread). The JDK's {@code java.net.http} client
 * hands each exchange between the caller, its selector thread and its executor: on a 2-core machine
 * that cost 1.4-2 ms per request at the median against 0.5 ms here (measured against the lock
 * service's {@code /health}, docs/benchmarks.md), three times on the way to a run's first action.
 * Every response body is read to its end (also on errors) so the connection goes back to the
 * keep-alive cache.
 *
 * <p>With tracing on, each call is a client span whose context goes out in {@code traceparent}
 * (docs/adr/0083).
 */
public final class InternalHttp {
  private static final int ATTEMPTS = 5;
  private static final AttributeKey<String> HTTP_METHOD =
      AttributeKey.stringKey("http.request.method");
  private static final AttributeKey<String> SERVER_ADDRESS =
      AttributeKey.stringKey("server.address");
  private static final AttributeKey<Long> HTTP_STATUS =
      AttributeKey.longKey("http.response.status_code");
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private final String baseUrl;
  private final String token;
  private final int attempts;

  /** A client that tries a request up to five times while the target cannot be reached. */
  public InternalHttp(String baseUrl, String token) {
    this(baseUrl, token, ATTEMPTS);
  }

  /**
   * @param token the caller's role token, sent as {@code Authorization: Bearer <token>}
   * @param attempts how many times a request is tried while the target cannot be reached (1: once,
   *     for callers that answer for the target's absence themselves)
   */
  public InternalHttp(String baseUrl, String token, int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1");
    }
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
    this.attempts = attempts;
  }

  /** The base URL requests' paths are relative to (no trailing slash). */
  public String baseUrl() {
    return baseUrl;
  }

  /** A response: status and body (parsed JSON when the body is JSON, else null). */
  public record Response(int status, String body) {
    public JsonNode json() {
      try {
        return body == null || body.isBlank() ? null : EventCodec.mapper().readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + body, e);
      }
    }
  }

  public Response get(String path, Duration timeout) {
    return send("GET", path, "Bearer " + token, null, timeout);
  }

  /**
   * A GET authenticated with {@code credential} (a run's state credential) instead of the role
   * token, for endpoints that accept it.
   */
  public Response getAs(String credential, String path, Duration timeout) {
    return send("GET", path, "Bearer " + credential, null, timeout);
  }

  public Response post(String path, Object body, Duration timeout) {
    return send(
        "POST",
        path,
        "Bearer " + token,
        EventCodec.toJson(body).getBytes(StandardCharsets.UTF_8),
        timeout);
  }

  /**
   * A POST authenticated with {@code credential} (a run's state credential) instead of the role
   * token, for endpoints that take it; {@code body} is sent as JSON.
   */
  public Response postAs(String credential, String path, Object body, Duration timeout) {
    return send(
        "POST",
        path,
        "Bearer " + credential,
        EventCodec.toJson(body).getBytes(StandardCharsets.UTF_8),
        timeout);
  }

  public Response delete(String path, Duration timeout) {
    return send("DELETE", path, "Bearer " + token, null, timeout);
  }

  /** A DELETE authenticated with {@code credential} instead of the role token. */
  public Response deleteAs(String credential, String path, Duration timeout) {
    return send("DELETE", path, "Bearer " + credential, null, timeout);
  }

  /**
   * Any method with the role token; {@code body} (null: none) is sent as JSON.
   *
   * @throws IllegalStateException when the target cannot be reached
   */
  public Response send(String method, String path, Object body, Duration timeout) {
    return send(
        method,
        path,
        "Bearer " + token,
        body == null ? null : EventCodec.toJson(body).getBytes(StandardCharsets.UTF_8),
        timeout);
  }

  private Response send(
      String method, String path, String authorization, byte[] body, Duration timeout) {
    URL url;
    try {
      url = URI.create(baseUrl + path).toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("not a URL: " + baseUrl + path, e);
    }
    if (!Tracing.enabled()) {
      return attempts(url, method, authorization, body, timeout, Map.of());
    }
    // a client span, child of the caller's; the server's span is its child (docs/adr/0083)
    Span span =
        Tracing.tracer()
            .spanBuilder(TraceServerFilter.spanName(method, url.getPath()))
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(HTTP_METHOD, method)
            .setAttribute(SERVER_ADDRESS, url.getHost())
            .startSpan();
    Map<String, String> trace = new HashMap<>();
    TraceHeaders.inject(Context.current().with(span), trace::put);
    try {
      Response response = attempts(url, method, authorization, body, timeout, trace);
      span.setAttribute(HTTP_STATUS, (long) response.status());
      return response;
    } catch (RuntimeException e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  private Response attempts(
      URL url,
      String method,
      String authorization,
      byte[] body,
      Duration timeout,
      Map<String, String> headers) {
    IOException last = null;
    for (int attempt = 0; attempt < attempts; attempt++) {
      try {
        return exchange(url, method, authorization, body, timeout, headers);
      } catch (IOException e) {
        last = e;
        if (attempt + 1 < attempts) {
          backoff(attempt);
        }
      }
    }
    throw new Unreachable(
        "cannot reach " + url + " after " + attempts + " attempt(s): " + last, last);
  }

  /** The target could not be reached (connection refused or reset, a read timed out). */
  public static final class Unreachable extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Unreachable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static Response exchange(
      URL url,
      String method,
      String authorization,
      byte[] body,
      Duration timeout,
      Map<String, String> headers)
      throws IOException {
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
    c.setReadTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
    c.setUseCaches(false);
    c.setInstanceFollowRedirects(false);
    c.setRequestProperty("Authorization", authorization);
    c.setRequestProperty("Accept", "application/json");
    headers.forEach(c::setRequestProperty);
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/json");
      c.setFixedLengthStreamingMode(body.length);
      try (OutputStream out = c.getOutputStream()) {
        out.write(body);
      }
    }
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String text;
    if (in == null) {
      text = "";
    } else {
      try (in) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
    return new Response(status, text);
  }

  private static void backoff(int attempt) {
    try {
      // a pause between retries of a failed connection, not synchronization
      Thread.sleep(Math.min(2000, 100L << attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
