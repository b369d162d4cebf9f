package dev.stagecraft.devstack;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The Kafka principals of a Stagecraft deployment: one per service role, one for bots and one
 * administrator. What each may do is {@link KafkaAccessPolicy}; the dev stack keeps their SCRAM
 * passwords in {@code <data dir>/kafka-users/} (docs/operations.md "Kafka security").
 */
public enum StackPrincipal {
  PLANNER("planner"),
  EXECUTOR("executor"),
  STATE("state"),
  LOCK("lock"),
  /** Bots, chat-ops and CI: send run requests, follow run events (docs/chatops.md). */
  TRIGGER("trigger"),
  /** A super user: creates the topics and ACLs, inspects anything (the dev stack, tests). */
  ADMIN("admin");

  private final String user;

  StackPrincipal(String user) {
    this.user = user;
  }

  /** The SCRAM user name ({@code "planner"}). */
  public String user() {
    return user;
  }

  /** The principal as ACLs name it ({@code "User:planner"}). */
  public String principal() {
    return "User:" + user;
  }

  /** The principal a service's clients authenticate as. */
  public static StackPrincipal of(StackService service) {
    return switch (service) {
      case PLANNER -> PLANNER;
      case EXECUTOR -> EXECUTOR;
      case STATE -> STATE;
      case LOCK -> LOCK;
    };
  }

  /**
   * The principal of a user name.
   *
   * @throws IllegalArgumentException naming the valid names
   */
  public static StackPrincipal named(String user) {
    return Arrays.stream(values())
        .filter(p -> p.user.equals(user))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no Kafka principal named '"
                        + user
                        + "': use one of "
                        + Arrays.stream(values())
                            .map(StackPrincipal::user)
                            .collect(Collectors.joining(", "))));
  }
}
