package dev.stagecraft.state.adapter.http;

import dev.stagecraft.platform.auth.TokenHash;
import dev.stagecraft.state.adapter.db.TenantStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.SQLException;

/** Checks {@code Authorization: Bearer ...} headers: the service token or an API token. */
@Singleton
public final class Authenticator {
  private final String serviceToken;
  private final TenantStore tenants;

  public Authenticator(
      @Value("${stagecraft.service-token:}") String serviceToken, TenantStore tenants) {
    this.serviceToken = serviceToken;
    this.tenants = tenants;
  }

  /** For {@code /internal/**}: the shared service token, compared in constant time. */
  public void requireService(String authorization) {
    String presented = bearer(authorization);
    if (serviceToken == null
        || serviceToken.isEmpty()
        || !TokenHash.matches(serviceToken, presented)) {
      throw Problem.unauthorized(
          "internal endpoints need 'Authorization: Bearer <STAGECRAFT_SERVICE_TOKEN>'");
    }
  }

  /** For {@code /api/**}: a valid, unrevoked API token; its tenant is the only one visible. */
  public Principal requireApiToken(String authorization) throws SQLException {
    return tenants
        .verify(bearer(authorization))
        .orElseThrow(
            () ->
                Problem.unauthorized(
                    "send a valid API token as 'Authorization: Bearer sc_...'; ask an admin for"
                        + " one if you have none"));
  }

  static String bearer(String authorization) {
    if (authorization == null) {
      return null;
    }
    String value = authorization.trim();
    if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return value.substring(7).trim();
    }
    return null;
  }
}
