package dev.stagecraft.state.adapter.http;

import dev.stagecraft.servicekit.http.ProblemHandler;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** Renders the {@code Problem}s the controllers throw as {@code application/problem+json}. */
@Factory
class HttpBeans {

  @Singleton
  ProblemHandler problemHandler() {
    return new ProblemHandler();
  }
}
