package dev.stagecraft.servicekit.http;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An expected HTTP failure as an RFC 9457 problem document: {@code type}, {@code title}, {@code
 * status}, {@code detail} and, when there are any, {@code diagnostics}. The detail says what to do.
 *
 * <p>Internal endpoints throw it and let {@link ProblemHandler} render it (type {@code
 * about:blank}); the public API returns {@link #response()} directly, with a {@link #typeFor
 * documented type} and the configuration diagnostics that caused a 422.
 */
public final class Problem extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The media type of every problem document. */
  public static final String PROBLEM_JSON = "application/problem+json";

  /** The type of a problem that needs no more explanation than its status. */
  public static final String ABOUT_BLANK = "about:blank";

  private final String type;
  private final int status;
  private final String title;
  private final List<Object> diagnostics;

  /** A problem of type {@code about:blank} without diagnostics. */
  public Problem(int status, String title, String detail) {
    this(ABOUT_BLANK, status, title, detail, null);
  }

  /**
   * @param diagnostics the findings behind the problem, serialized as they are; {@code null} leaves
   *     the member out of the document
   */
  public Problem(String type, int status, String title, String detail, List<Object> diagnostics) {
    super(detail, null, false, false);
    this.type = type;
    this.status = status;
    this.title = title;
    this.diagnostics = diagnostics == null ? null : List.copyOf(diagnostics);
  }

  /** The public API's type for a problem: its page under stagecraft.dev, named after the title. */
  public static String typeFor(String title) {
    return "https://stagecraft.dev/problems/" + title.toLowerCase().replace(' ', '-');
  }

  public static Problem badRequest(String detail) {
    return new Problem(400, "Bad Request", detail);
  }

  public static Problem unauthorized(String detail) {
    return new Problem(401, "Unauthorized", detail);
  }

  public static Problem notFound(String detail) {
    return new Problem(404, "Not Found", detail);
  }

  public static Problem conflict(String detail) {
    return new Problem(409, "Conflict", detail);
  }

  public String type() {
    return type;
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  public String detail() {
    return getMessage();
  }

  /** The diagnostics, or {@code null} when the problem has none. */
  public List<Object> diagnostics() {
    return diagnostics;
  }

  /** The document's members in wire order; {@code diagnostics} only when there are any. */
  public Map<String, Object> document() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type);
    body.put("title", title);
    body.put("status", status);
    body.put("detail", detail());
    if (diagnostics != null) {
      body.put("diagnostics", diagnostics);
    }
    return body;
  }

  /** This problem as an {@code application/problem+json} response with its status. */
  public MutableHttpResponse<String> response() {
    return HttpResponse.<String>status(HttpStatus.valueOf(status))
        .contentType(PROBLEM_JSON)
        .body(Json.write(document()));
  }
}
