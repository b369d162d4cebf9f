package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * A fault the soak injected.
 *
 * @param kind e.g. {@code kill}, {@code stop}, {@code kafka-restart}, {@code postgres-restart},
 *     {@code sever}, {@code blackhole}
 * @param target what it hit (an instance, a connection)
 * @param at when it began
 * @param clearedAt when it ended (the process restarted or continued, the link came back); null for
 *     an instantaneous fault
 */
public record Fault(String kind, String target, Instant at, Instant clearedAt) {

  public Fault {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(at, "at");
  }

  /** The moment the system is fault-free again as far as this fault goes. */
  public Instant over() {
    return clearedAt == null ? at : clearedAt;
  }
}
