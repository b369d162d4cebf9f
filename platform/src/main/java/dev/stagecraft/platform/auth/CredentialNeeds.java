package dev.stagecraft.platform.auth;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Which service tokens each Stagecraft process holds: the one it presents on its own calls, and
 * those of the roles its internal routes accept (docs/internal-api.md, "Service roles"). The
 * services check their configuration against it at start; the dev stack gives each process exactly
 * these variables.
 */
public enum CredentialNeeds {
  /** Presents the planner token to the state and lock services; serves no internal route. */
  PLANNER_SERVICE("planner-service", ServiceRole.PLANNER, EnumSet.noneOf(ServiceRole.class)),
  /**
   * Presents the state token to the lock service; accepts the planner's and, when set, the
   * operator's (without it, the tenant and token routes accept the planner only).
   */
  STATE_SERVICE(
      "state-service",
      ServiceRole.STATE,
      EnumSet.of(ServiceRole.PLANNER),
      EnumSet.of(ServiceRole.OPERATOR)),
  /** Calls no other service; accepts the planner's and the state service's tokens. */
  LOCK_SERVICE("lock-service", null, EnumSet.of(ServiceRole.PLANNER, ServiceRole.STATE)),
  /**
   * Talks to Kafka only and holds no token at all: the {@code local-exec} commands it runs must not
   * find one (it refuses to start with one in its environment).
   */
  EXECUTOR_SERVICE("executor-service", null, EnumSet.noneOf(ServiceRole.class));

  private final String service;
  private final ServiceRole presents;
  private final Set<ServiceRole> accepts;
  private final Set<ServiceRole> acceptsWhenSet;

  CredentialNeeds(String service, ServiceRole presents, Set<ServiceRole> accepts) {
    this(service, presents, accepts, EnumSet.noneOf(ServiceRole.class));
  }

  CredentialNeeds(
      String service,
      ServiceRole presents,
      Set<ServiceRole> accepts,
      Set<ServiceRole> acceptsWhenSet) {
    this.service = service;
    this.presents = presents;
    this.accepts = Set.copyOf(accepts);
    this.acceptsWhenSet = Set.copyOf(acceptsWhenSet);
  }

  /** The process's name in messages, e.g. {@code state-service}. */
  public String service() {
    return service;
  }

  /** The role whose token the process presents on its calls, if it calls another service. */
  public Optional<ServiceRole> presents() {
    return Optional.ofNullable(presents);
  }

  /** The roles whose tokens the process cannot start without (its own and those it accepts). */
  public Set<ServiceRole> required() {
    EnumSet<ServiceRole> roles = EnumSet.noneOf(ServiceRole.class);
    roles.addAll(accepts);
    presents().ifPresent(roles::add);
    return roles;
  }

  /** The roles whose tokens the process accepts when they are set, and may start without. */
  public Set<ServiceRole> optional() {
    return acceptsWhenSet.isEmpty() ? Set.of() : EnumSet.copyOf(acceptsWhenSet);
  }

  /** Every role whose token the process may hold: {@link #required()} and {@link #optional()}. */
  public Set<ServiceRole> holds() {
    EnumSet<ServiceRole> roles = EnumSet.noneOf(ServiceRole.class);
    roles.addAll(required());
    roles.addAll(acceptsWhenSet);
    return roles;
  }
}
