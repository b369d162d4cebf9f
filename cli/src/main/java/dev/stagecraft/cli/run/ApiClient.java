package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The CLI's HTTP client: one address (the planner's), everything else found through {@code
 * /.well-known/stagecraft.json}. Errors from the server ({@code application/problem+json}) become
 * {@link ApiException}s carrying the server's detail.
 */
public final class ApiClient {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String address;
  private final String token;
  private JsonNode discovery;

  public ApiClient(String address, String token) {
    this.address = address.endsWith("/") ? address.substring(0, address.length() - 1) : address;
    this.token = token;
  }

  /** An error answer of the server. */
  public static final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final transient JsonNode body;
    private final transient Duration retryAfter;

    ApiException(int status, String message, JsonNode body) {
      this(status, message, body, null);
    }

    ApiException(int status, String message, JsonNode body, Duration retryAfter) {
      super(message);
      this.status = status;
      this.body = body;
      this.retryAfter = retryAfter;
    }

    /** The answer's {@code Retry-After} (seconds), when it had one: try again after that. */
    public Optional<Duration> retryAfter() {
      return Optional.ofNullable(retryAfter);
    }

    public int status() {
      return status;
    }

    public JsonNode body() {
      return body;
    }
  }

  /** A public API's base URL by its discovery name ({@code runs}, {@code state}, ...). */
  public String api(String name) throws IOException, InterruptedException {
    if (discovery == null) {
      discovery =
          send(HttpRequest.newBuilder(URI.create(address + "/.well-known/stagecraft.json")).GET());
    }
    JsonNode url = discovery.get(name);
    if (url == null) {
      throw new IOException("the server at " + address + " does not offer the " + name + " API");
    }
    return url.asText();
  }

  public JsonNode get(String url) throws IOException, InterruptedException {
    return send(authorized(url).GET());
  }

  /** GET that returns null on 204 No Content. */
  public JsonNode getOrNull(String url) throws IOException, InterruptedException {
    return send(authorized(url).GET());
  }

  public JsonNode post(String url, Object body) throws IOException, InterruptedException {
    return post(url, body, DEFAULT_TIMEOUT);
  }

  /** POST that may take up to {@code timeout} (say, while the server waits for a lock). */
  public JsonNode post(String url, Object body, Duration timeout)
      throws IOException, InterruptedException {
    return send(
        authorized(url)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body))));
  }

  /**
   * POST of a command that is safe to send again (a cancel): while the server answers 503 with
   * {@code Retry-After} (say, the planner instance that drives the run is being replaced), waits as
   * it asks and sends it again, for at most {@code patience} in all; {@code waiting} is told the
   * server's reason before each wait. Any other answer, or a 503 past the patience, is returned or
   * thrown as {@link #post(String, Object)} does.
   */
  public JsonNode postRetrying(String url, Object body, Duration patience, Consumer<String> waiting)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      try {
        return post(url, body);
      } catch (ApiException e) {
        if (e.status() != 503 || e.retryAfter().isEmpty()) {
          throw e;
        }
        long pause = Math.min(e.retryAfter().get().toNanos(), MAX_RETRY_PAUSE.toNanos());
        if (System.nanoTime() + pause > deadline) {
          throw e;
        }
        waiting.accept(
            e.getMessage() + " (trying again in " + Math.max(1, pause / 1_000_000_000L) + " s)");
        TimeUnit.NANOSECONDS.sleep(pause);
      }
    }
  }

  /** The longest pause between two tries, whatever {@code Retry-After} says. */
  static final Duration MAX_RETRY_PAUSE = Duration.ofSeconds(10);

  /** POST of a raw JSON document, with its {@code Content-MD5} (base64), as uploads are sent. */
  public JsonNode postDocument(String url, byte[] document)
      throws IOException, InterruptedException {
    String md5;
    try {
      md5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(document));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return send(
        authorized(url)
            .header("Content-Type", "application/json")
            .header("Content-MD5", md5)
            .POST(HttpRequest.BodyPublishers.ofByteArray(document)));
  }

  public JsonNode patch(String url, Object body) throws IOException, InterruptedException {
    return send(
        authorized(url)
            .timeout(DEFAULT_TIMEOUT)
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body))));
  }

  public JsonNode put(String url, Object body) throws IOException, InterruptedException {
    return send(
        authorized(url)
            .timeout(DEFAULT_TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body))));
  }

  public JsonNode delete(String url) throws IOException, InterruptedException {
    return send(authorized(url).DELETE());
  }

  /**
   * Opens a Server-Sent Events stream ({@code Accept: text/event-stream}, no overall timeout: the
   * stream lasts as long as the run), sending {@code Last-Event-ID} when {@code lastEventId} is not
   * null. An error answer becomes an {@link ApiException}; the caller closes the body.
   */
  public HttpResponse<InputStream> openEventStream(String url, String lastEventId)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        withToken(HttpRequest.newBuilder(URI.create(url)))
            .header("Accept", "text/event-stream")
            .GET();
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    HttpRequest built = b.build();
    HttpResponse<InputStream> response = exchange(built, HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() >= 400) {
      byte[] body;
      try (InputStream in = response.body()) {
        body = in.readAllBytes();
      }
      throw apiError(response, body.length == 0 ? null : MAPPER.readTree(body), built);
    }
    return response;
  }

  private HttpRequest.Builder authorized(String url) {
    return withToken(HttpRequest.newBuilder(URI.create(url)).timeout(DEFAULT_TIMEOUT));
  }

  /** Adds the bearer token, when there is one. */
  private HttpRequest.Builder withToken(HttpRequest.Builder b) {
    if (token != null && !token.isBlank()) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpRequest built = request.header("Accept", "application/json").build();
    HttpResponse<String> response = exchange(built, HttpResponse.BodyHandlers.ofString());
    String body = response.body();
    JsonNode json = body == null || body.isBlank() ? null : MAPPER.readTree(body);
    if (response.statusCode() == 204) {
      return null;
    }
    if (response.statusCode() >= 400) {
      throw apiError(response, json, built);
    }
    return json;
  }

  /** Sends {@code request}; a refused connection becomes an error that says how to start one. */
  private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    try {
      return http.send(request, handler);
    } catch (ConnectException e) {
      throw new IOException(
          "cannot reach the Stagecraft server at "
              + address
              + " (is the dev stack running? start it with ./stagecraft up -detach)",
          e);
    }
  }

  /**
   * The error for an error answer: the problem's {@code detail} when the body has one, else the
   * status and the request's URI.
   */
  private static ApiException apiError(HttpResponse<?> response, JsonNode json, HttpRequest sent) {
    String detail =
        json != null && json.hasNonNull("detail")
            ? json.get("detail").asText()
            : "HTTP " + response.statusCode() + " from " + sent.uri();
    return new ApiException(response.statusCode(), detail, json, retryAfter(response));
  }

  /** {@code Retry-After} in seconds (the HTTP-date form is not used by Stagecraft), or null. */
  private static Duration retryAfter(HttpResponse<?> response) {
    return response
        .headers()
        .firstValue("Retry-After")
        .filter(v -> v.strip().matches("[0-9]{1,6}"))
        .map(v -> Duration.ofSeconds(Long.parseLong(v.strip())))
        .orElse(null);
  }
}
