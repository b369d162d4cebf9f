package dev.stagecraft.planner.service.adapter.clients;

import dev.stagecraft.planner.service.run.StateAddresses;
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
  private String publicStateUrl;

  /**
   * @param credentials the planner's tokens, checked at start (the planner presents its own)
   */
  public InternalApis(String stateUrl, String lockUrl, ServiceCredentials credentials) {
    this.stateUrl = stateUrl;
    this.lockUrl = lockUrl;
    this.token = credentials.ownToken();
  }

  /** The state service's public URL, when clients know it by another one than the planner. */
  public InternalApis withPublicStateUrl(String url) {
    this.publicStateUrl = url;
    return this;
  }

  /**
   * This Stagecraft's state addresses (its public URL and the planner's), which a remote state's
   * http address must be one of (docs/planning.md "Remote state").
   */
  public StateAddresses ownStateAddresses() {
    return new StateAddresses(publicStateUrl, stateUrl);
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
