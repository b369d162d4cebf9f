package dev.stagecraft.servicekit.http;

import dev.stagecraft.platform.auth.CredentialNeeds;
import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.platform.auth.ServiceRole;
import io.micronaut.core.value.PropertyResolver;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks who calls an {@code /internal/**} route: {@code Authorization: Bearer <token>} is one of
 * the role tokens this service holds ({@link ServiceCredentials}, compared in constant time), and
 * that role is one the route accepts. The problems name the roles the route accepts, never the
 * token presented.
 */
public final class ServiceAuth {
  private final ServiceCredentials credentials;

  public ServiceAuth(ServiceCredentials credentials) {
    this.credentials = credentials;
  }

  /**
   * The property a role's token is configured under, {@code stagecraft.service-tokens.<role>}: each
   * service's {@code application.yml} binds it to the role's environment variable.
   */
  public static String property(ServiceRole role) {
    return "stagecraft.service-tokens." + role.key();
  }

  /**
   * The process's tokens from its configuration ({@link #property}), checked against its
   * environment ({@link ServiceCredentials#load}).
   *
   * @throws IllegalStateException naming the variables to set or remove: the service must not start
   */
  public static ServiceCredentials credentials(CredentialNeeds process, PropertyResolver config) {
    return ServiceCredentials.load(
        process,
        role -> config.getProperty(property(role), String.class).orElse(null),
        System.getenv());
  }

  /**
   * @param accepted the roles the route accepts
   * @return the caller's role
   * @throws Problem 401 when the header carries no token or one of no role this service knows; 403
   *     when the token is a known role's that the route does not accept
   */
  public ServiceRole require(String authorization, Set<ServiceRole> accepted) {
    ServiceRole caller =
        credentials
            .roleOf(bearer(authorization))
            .orElseThrow(
                () ->
                    Problem.unauthorized(
                        "this internal route needs 'Authorization: Bearer <token>' with the token"
                            + " of a role it accepts: "
                            + accepts(accepted)
                            + "; the request carried no token, or one "
                            + credentials.process().service()
                            + " does not know"));
    if (!accepted.contains(caller)) {
      throw new Problem(
          403,
          "Forbidden",
          "the "
              + caller.key()
              + " role may not call this internal route; it accepts "
              + accepts(accepted));
    }
    return caller;
  }

  private String accepts(Set<ServiceRole> accepted) {
    String unknown =
        accepted.stream()
            .filter(r -> !credentials.knows(r))
            .sorted()
            .map(ServiceRole::variable)
            .collect(Collectors.joining(", "));
    return "the "
        + ServiceRole.keys(accepted)
        + " role"
        + (accepted.size() == 1 ? "" : "s")
        + " ("
        + ServiceRole.variables(accepted)
        + ")"
        + (unknown.isEmpty()
            ? ""
            : "; " + credentials.process().service() + " was not given " + unknown);
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
