package dev.stagecraft.lock.adapter.http;

import dev.stagecraft.platform.auth.CredentialNeeds;
import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.servicekit.http.DatabaseProblemHandler;
import dev.stagecraft.servicekit.http.ProblemHandler;
import dev.stagecraft.servicekit.http.ServiceAuth;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import jakarta.inject.Singleton;
import java.util.Set;

/** The role check of the lock endpoints and the renderer of the problems they throw. */
@Factory
class HttpBeans {

  /**
   * Who may call the lock routes, every one of them: the planner (its runs' locks) and the state
   * service (the Terraform HTTP backend's locks and force-unlocks).
   */
  static final Set<ServiceRole> LOCK_CALLERS = Set.of(ServiceRole.PLANNER, ServiceRole.STATE);

  /** Created at start, so that a missing or stray token stops the service at once. */
  @Context
  ServiceAuth serviceAuth(Environment config) {
    return new ServiceAuth(ServiceAuth.credentials(CredentialNeeds.LOCK_SERVICE, config));
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
