package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Who is calling: the tenant and role of the request's API token, sent as a bearer token or as the
 * password of HTTP basic auth (what Terraform's http backend sends).
 */
@Singleton
public final class ApiAuth {
  private final TokenVerifier verifier;

  public ApiAuth(TokenVerifier verifier) {
    this.verifier = verifier;
  }

  public Optional<Principal> principal(HttpRequest<?> request) {
    return token(request).flatMap(verifier::verify);
  }

  /** Who {@code token} belongs to, as for a request presenting it (the console's sessions). */
  public Optional<Principal> principalOf(String token) {
    return verifier.verify(token);
  }

  /** The API token the request presents (bearer, or basic auth's password); a secret. */
  public static Optional<String> token(HttpRequest<?> request) {
    String header = request.getHeaders().getAuthorization().orElse(null);
    if (header == null) {
      return Optional.empty();
    }
    if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.of(header.substring(7).trim());
    }
    if (header.regionMatches(true, 0, "Basic ", 0, 6)) {
      try {
        String decoded =
            new String(
                Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        return colon < 0 ? Optional.empty() : Optional.of(decoded.substring(colon + 1));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
