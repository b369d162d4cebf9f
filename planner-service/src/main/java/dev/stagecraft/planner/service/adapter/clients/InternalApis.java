package dev.stagecraft.planner.service.adapter.clients;

import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.servicekit.http.InternalHttp;

/**
 * The internal APIs the planner calls, the state service's and the lock service's, each with the
 * planner's own token ({@code STAGECRAFT_SERVICE_TOKEN_PLANNER}, docs/internal-api.md "Service
 * roles"). Thread-safe: every client it hands out is.
 */
public final class InternalApis {
  private final String stateUrl;
  private final String lockUrl;
  private final String token;

  /**
   * @param credentials the planner's tokens, checked at start (the planner presents its own)
   */
  public InternalApis(String stateUrl, String lockUrl, ServiceCredentials credentials) {
    this.stateUrl = stateUrl;
    this.lockUrl = lockUrl;
    this.token = credentials.ownToken();
  }

  /** A client of the state service's {@code /internal/**}. */
  public InternalHttp state() {
    return new InternalHttp(stateUrl, token);
  }

  /** A client of the lock service's {@code /internal/**}. */
  public InternalHttp lock() {
    return new InternalHttp(lockUrl, token);
  }
}
