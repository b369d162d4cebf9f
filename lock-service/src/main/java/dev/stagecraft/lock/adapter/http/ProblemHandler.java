package dev.stagecraft.lock.adapter.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;

/** Renders {@link Problem}s as RFC 9457 {@code application/problem+json}. */
@Produces
@Singleton
@Requires(classes = {Problem.class, ExceptionHandler.class})
public class ProblemHandler implements ExceptionHandler<Problem, HttpResponse<String>> {

  @Override
  public HttpResponse<String> handle(HttpRequest request, Problem problem) {
    return render(problem);
  }

  static HttpResponse<String> render(Problem problem) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", "about:blank");
    body.put("title", problem.title());
    body.put("status", problem.status());
    body.put("detail", problem.detail());
    var response =
        HttpResponse.<String>status(HttpStatus.valueOf(problem.status()))
            .contentType("application/problem+json")
            .body(Json.write(body));
    if (problem.status() == 401) {
      response.header("WWW-Authenticate", "Bearer");
    }
    return response;
  }
}
