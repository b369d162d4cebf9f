package dev.stagecraft.chaos.soak;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The faults the soak injects, by the kind written in the fault log ({@code FaultLog}). */
public enum FaultKind {
  /** {@code kill -9} of an instance, then its restart (cleared when it answers /health again). */
  KILL("kill"),
  /** {@code SIGSTOP} of a planner or executor for longer than its lease, then {@code SIGCONT}. */
  STOP("stop"),
  /** The embedded PostgreSQL stopped (fast shutdown) and started again on the same port. */
  POSTGRES_RESTART("postgres-restart"),
  /**
   * The embedded Kafka broker stopped (controlled shutdown) and started again on the same port and
   * log directory; cleared once it authenticates the services' principals again.
   */
  KAFKA_RESTART("kafka-restart"),
  /**
   * Every connection open now through the {@code ssh} or {@code http} proxies closed on both sides
   * (a network failure, a killed peer); new connections pass.
   */
  SEVER("sever"),
  /**
   * Every connection open now through the {@code ssh} or {@code http} proxies stops passing bytes
   * but stays open (a peer gone without a FIN): only the client's own timeouts or keep-alives can
   * notice. New connections pass.
   */
  BLACK_HOLE("black-hole");

  private final String logName;

  FaultKind(String logName) {
    this.logName = logName;
  }

  /** The kind as the fault log and the report name it. */
  public String logName() {
    return logName;
  }

  /**
   * @throws IllegalArgumentException naming the known kinds
   */
  public static FaultKind named(String name) {
    return Arrays.stream(values())
        .filter(k -> k.logName.equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown fault kind \""
                        + name
                        + "\"; known: "
                        + Arrays.stream(values())
                            .map(FaultKind::logName)
                            .collect(Collectors.joining(", "))));
  }
}
