package dev.stagecraft.planner.service.adapter.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import java.util.List;

/** An RFC 9457 problem document: every error the API returns has this shape. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(
    String type, String title, int status, String detail, List<Object> diagnostics) {

  public static final MediaType PROBLEM_JSON = MediaType.of("application/problem+json");

  public static HttpResponse<Problem> of(HttpStatus status, String title, String detail) {
    return of(status, title, detail, null);
  }

  public static HttpResponse<Problem> of(
      HttpStatus status, String title, String detail, List<Object> diagnostics) {
    return HttpResponse.<Problem>status(status)
        .contentType(PROBLEM_JSON)
        .body(
            new Problem(
                "https://stagecraft.dev/problems/" + title.toLowerCase().replace(' ', '-'),
                title,
                status.getCode(),
                detail,
                diagnostics));
  }

  public static HttpResponse<Problem> unauthorized() {
    return of(
        HttpStatus.UNAUTHORIZED,
        "Unauthorized",
        "A valid API token is required: send it as 'Authorization: Bearer <token>'"
            + " (stagecraft env prints the dev stack's).");
  }
}
