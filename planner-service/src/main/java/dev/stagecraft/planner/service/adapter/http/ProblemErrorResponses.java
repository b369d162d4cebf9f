package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.servicekit.http.Json;
import dev.stagecraft.servicekit.http.Problem;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import java.util.stream.Collectors;

/**
 * The errors the HTTP server answers by itself — a body or parameter it cannot read (a number
 * beyond its type's range among them), a request over the size limit, an unknown route — as {@code
 * application/problem+json}, like every other error of the API, with what was wrong as the detail
 * (docs/runs.md "Limits"). Replaces Micronaut's default error bodies.
 */
@Singleton
public class ProblemErrorResponses implements ErrorResponseProcessor<String> {

  @Override
  public MutableHttpResponse<String> processResponse(
      ErrorContext context, MutableHttpResponse<?> response) {
    String title = response.reason();
    String detail =
        context.getErrors().stream().map(Error::getMessage).collect(Collectors.joining("; "));
    Problem problem =
        new Problem(
            Problem.typeFor(title),
            response.code(),
            title,
            detail.isEmpty() ? title + "." : detail,
            null);
    return response.contentType(Problem.PROBLEM_JSON).body(Json.write(problem.document()));
  }
}
