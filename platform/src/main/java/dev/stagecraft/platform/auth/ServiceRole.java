package dev.stagecraft.platform.auth;

import java.util.Collection;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Who calls an {@code /internal/**} route, proven by the token the caller presents: each role has
 * its own token, set in its own environment variable (docs/internal-api.md, "Service roles").
 *
 * <p>There is no role for the lock service or the executors: neither calls another service's
 * internal API (the lock service answers calls only; the executors talk to Kafka only), so neither
 * holds a token.
 */
public enum ServiceRole {
  /** The planner service: runs (openings, fencing, outcomes, taint), host keys, token checks. */
  PLANNER("STAGECRAFT_SERVICE_TOKEN_PLANNER"),
  /** The state service: the lock service's locks for the Terraform HTTP backend. */
  STATE("STAGECRAFT_SERVICE_TOKEN_STATE"),
  /** People and scripts administering tenants (the dev stack's bootstrap): tenants and tokens. */
  OPERATOR("STAGECRAFT_OPERATOR_TOKEN");

  private final String variable;

  ServiceRole(String variable) {
    this.variable = variable;
  }

  /** The environment variable that holds this role's token. */
  public String variable() {
    return variable;
  }

  /** The name problems and docs use: {@code planner}, {@code state}, {@code operator}. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code "planner, operator"}: the roles' keys in declaration order, for messages. */
  public static String keys(Collection<ServiceRole> roles) {
    return roles.stream().sorted().map(ServiceRole::key).collect(Collectors.joining(", "));
  }

  /** {@code "STAGECRAFT_SERVICE_TOKEN_PLANNER, ..."}: the roles' variables, for messages. */
  public static String variables(Collection<ServiceRole> roles) {
    return roles.stream().sorted().map(ServiceRole::variable).collect(Collectors.joining(", "));
  }
}
