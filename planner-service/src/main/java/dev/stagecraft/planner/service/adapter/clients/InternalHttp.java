package dev.stagecraft.planner.service.adapter.clients;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Calls {@code /internal/**} endpoints of the other services with the service token. Transport
 * failures are retried a few times with backoff (the target may be restarting); HTTP answers are
 * returned as they are for the caller to interpret.
 */
public final class InternalHttp {
  private static final int ATTEMPTS = 5;
  // HTTP/1.1 with kept-alive connections: the services speak it, and the default (HTTP/2) would
  // offer an h2c upgrade on every new connection for nothing
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String baseUrl;
  private final String serviceToken;

  public InternalHttp(String baseUrl, String serviceToken) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.serviceToken = serviceToken;
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
    return send(request(path, timeout).GET().build());
  }

  /**
   * A GET authenticated with {@code credential} (a run's state credential) instead of the service
   * token, for endpoints that accept it.
   */
  public Response getAs(String credential, String path, Duration timeout) {
    return send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(timeout)
            .header("Authorization", "Bearer " + credential)
            .header("Accept", "application/json")
            .GET()
            .build());
  }

  public Response post(String path, Object body, Duration timeout) {
    return send(
        request(path, timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(EventCodec.toJson(body)))
            .build());
  }

  public Response delete(String path, Duration timeout) {
    return send(request(path, timeout).DELETE().build());
  }

  private HttpRequest.Builder request(String path, Duration timeout) {
    return HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(timeout)
        .header("Authorization", "Bearer " + serviceToken)
        .header("Accept", "application/json");
  }

  private Response send(HttpRequest request) {
    IOException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.body());
      } catch (IOException e) {
        last = e;
        backoff(attempt);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted calling " + request.uri(), e);
      }
    }
    throw new IllegalStateException(
        "cannot reach " + request.uri() + " after " + ATTEMPTS + " attempts: " + last, last);
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
