package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.run.view.DiagnosticView;
import dev.stagecraft.servicekit.http.Problem;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The public API's problem documents (RFC 9457): typed by title (a page under stagecraft.dev) and
 * without {@code WWW-Authenticate}, since the API takes a bearer token or basic auth alike; and the
 * answers several controllers share.
 */
final class ApiProblems {
  /** A workspace (or tenant) name: 1-90 letters, digits, '_', '.' or '-'. */
  static final Pattern WORKSPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,89}");

  private ApiProblems() {}

  static MutableHttpResponse<String> problem(HttpStatus status, String title, String detail) {
    return problem(status, title, detail, null);
  }

  private static MutableHttpResponse<String> problem(
      HttpStatus status, String title, String detail, List<Object> diagnostics) {
    return new Problem(Problem.typeFor(title), status.getCode(), title, detail, diagnostics)
        .response();
  }

  static HttpResponse<String> unauthorized() {
    return problem(
        HttpStatus.UNAUTHORIZED,
        "Unauthorized",
        "A valid API token is required: send it as 'Authorization: Bearer <token>'"
            + " (stagecraft env prints the dev stack's).");
  }

  static HttpResponse<?> notFound(String runId) {
    return problem(HttpStatus.NOT_FOUND, "Not Found", "There is no run " + runId + ".");
  }

  static HttpResponse<?> recordsUnavailable(String runId) {
    return problem(
        HttpStatus.SERVICE_UNAVAILABLE,
        "Run records unavailable",
        "The planner could not read run " + runId + " from its database; retry shortly.");
  }

  /** 413: an upload over one of the limits (docs/runs.md "Limits"), which the detail names. */
  static HttpResponse<?> tooLarge(IllegalArgumentException e) {
    return problem(HttpStatus.REQUEST_ENTITY_TOO_LARGE, "Configuration too large", e.getMessage());
  }

  static HttpResponse<?> invalidFiles(UploadedFiles.InvalidUpload e) {
    if (e instanceof UploadedFiles.TooLarge) {
      return tooLarge(e);
    }
    return problem(HttpStatus.BAD_REQUEST, "Invalid files", e.getMessage());
  }

  /** 422: a configuration with errors, each listed ({@link DiagnosticView}). */
  static HttpResponse<?> diagnostics(PlanResult result) {
    List<Object> list =
        result.diagnostics().list().stream().map(d -> (Object) DiagnosticView.of(d)).toList();
    return problem(
        HttpStatus.UNPROCESSABLE_ENTITY, "Invalid configuration", result.renderDiagnostics(), list);
  }
}
