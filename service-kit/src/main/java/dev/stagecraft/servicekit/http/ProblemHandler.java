package dev.stagecraft.servicekit.http;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;

/**
 * Renders thrown {@link Problem}s as RFC 9457 {@code application/problem+json}. A 401 also carries
 * {@code WWW-Authenticate: Bearer}: the services that throw problems take bearer tokens only.
 *
 * <p>Not a bean by itself: a service that throws problems declares one in its own factory.
 */
@Produces
public class ProblemHandler implements ExceptionHandler<Problem, HttpResponse<String>> {

  @Override
  @SuppressWarnings("rawtypes") // ExceptionHandler declares the raw type; an override must match
  public HttpResponse<String> handle(HttpRequest request, Problem problem) {
    MutableHttpResponse<String> response = problem.response();
    if (problem.status() == 401) {
      response.header("WWW-Authenticate", "Bearer");
    }
    return response;
  }
}
