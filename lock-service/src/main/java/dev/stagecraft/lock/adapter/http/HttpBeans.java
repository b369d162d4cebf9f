package dev.stagecraft.lock.adapter.http;

import dev.stagecraft.servicekit.http.ProblemHandler;
import dev.stagecraft.servicekit.http.ServiceAuth;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

/** The service-token check of the lock endpoints and the renderer of the problems they throw. */
@Factory
class HttpBeans {

  @Singleton
  ServiceAuth serviceAuth(@Value("${stagecraft.service-token:}") String serviceToken) {
    return new ServiceAuth(serviceToken);
  }

  @Singleton
  ProblemHandler problemHandler() {
    return new ProblemHandler();
  }
}
