package dev.stagecraft.state.adapter.http;

import dev.stagecraft.platform.auth.CredentialNeeds;
import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.servicekit.http.DatabaseProblemHandler;
import dev.stagecraft.servicekit.http.ProblemHandler;
import dev.stagecraft.servicekit.http.ServiceAuth;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import jakarta.inject.Singleton;

/**
 * The service's role tokens (its own, presented to the lock service, and those its internal routes
 * accept), their check, and the renderer of the {@code Problem}s the controllers throw.
 */
@Factory
class HttpBeans {

  /** Created at start, so that a missing or stray token stops the service at once. */
  @Context
  ServiceCredentials serviceCredentials(Environment config) {
    return ServiceAuth.credentials(CredentialNeeds.STATE_SERVICE, config);
  }

  @Singleton
  ServiceAuth serviceAuth(ServiceCredentials credentials) {
    return new ServiceAuth(credentials);
  }

  @Singleton
  ProblemHandler problemHandler() {
    return new ProblemHandler();
  }

  /** A database that cannot be reached is a 503 the callers repeat, not a 500 they give up on. */
  @Singleton
  DatabaseProblemHandler databaseProblemHandler() {
    return new DatabaseProblemHandler();
  }
}
