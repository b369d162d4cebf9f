package dev.stagecraft.state.adapter.http;

import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.servicekit.http.ServiceAuth;
import dev.stagecraft.state.adapter.db.TenantStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.SQLException;

/** Checks {@code Authorization: Bearer ...} headers: the service token or an API token. */
@Singleton
public final class Authenticator {
  private final ServiceAuth service;
  private final TenantStore tenants;

  public Authenticator(
      @Value("${stagecraft.service-token:}") String serviceToken, TenantStore tenants) {
    this.service = new ServiceAuth(serviceToken);
    this.tenants = tenants;
  }

  /** For {@code /internal/**}: the shared service token, compared in constant time. */
  public void requireService(String authorization) {
    service.require(authorization);
  }

  /** For {@code /api/**}: a valid, unrevoked API token; its tenant is the only one visible. */
  public Principal requireApiToken(String authorization) throws SQLException {
    return tenants
        .verify(ServiceAuth.bearer(authorization))
        .orElseThrow(
            () ->
                Problem.unauthorized(
                    "send a valid API token as 'Authorization: Bearer sc_...'; ask an admin for"
                        + " one if you have none"));
  }
}
