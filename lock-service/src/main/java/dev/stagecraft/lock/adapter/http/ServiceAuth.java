package dev.stagecraft.lock.adapter.http;

import dev.stagecraft.platform.auth.TokenHash;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

/** Checks {@code Authorization: Bearer <STAGECRAFT_SERVICE_TOKEN>} in constant time. */
@Singleton
public final class ServiceAuth {
  private final String serviceToken;

  public ServiceAuth(@Value("${stagecraft.service-token:}") String serviceToken) {
    this.serviceToken = serviceToken;
  }

  public void require(String authorization) {
    String presented = null;
    if (authorization != null && authorization.trim().regionMatches(true, 0, "Bearer ", 0, 7)) {
      presented = authorization.trim().substring(7).trim();
    }
    if (serviceToken == null
        || serviceToken.isEmpty()
        || !TokenHash.matches(serviceToken, presented)) {
      throw Problem.unauthorized(
          "internal endpoints need 'Authorization: Bearer <STAGECRAFT_SERVICE_TOKEN>'");
    }
  }
}
