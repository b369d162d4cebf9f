package dev.stagecraft.state.adapter.http;

/**
 * An expected HTTP failure, rendered by {@link ProblemHandler} as {@code application/problem+json}
 * ({@code type}, {@code title}, {@code status}, {@code detail}). The detail says what to do.
 */
public final class Problem extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String title;

  public Problem(int status, String title, String detail) {
    super(detail, null, false, false);
    this.status = status;
    this.title = title;
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

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  public String detail() {
    return getMessage();
  }
}
