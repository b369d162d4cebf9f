package dev.stagecraft.servicekit.http;

import dev.stagecraft.platform.auth.TokenHash;

/**
 * Checks {@code Authorization: Bearer <STAGECRAFT_SERVICE_TOKEN>} in constant time. An empty
 * configured token refuses every call rather than letting every call in.
 */
public final class ServiceAuth {
  private final String serviceToken;

  /**
   * @param serviceToken the shared service token ({@code stagecraft.service-token}), may be empty
   */
  public ServiceAuth(String serviceToken) {
    this.serviceToken = serviceToken;
  }

  /**
   * @throws Problem 401 unless the header carries the service token
   */
  public void require(String authorization) {
    String presented = bearer(authorization);
    if (serviceToken == null
        || serviceToken.isEmpty()
        || !TokenHash.matches(serviceToken, presented)) {
      throw Problem.unauthorized(
          "internal endpoints need 'Authorization: Bearer <STAGECRAFT_SERVICE_TOKEN>'");
    }
  }

  /** The token of an {@code Authorization: Bearer ...} header, or {@code null} for any other. */
  public static String bearer(String authorization) {
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
