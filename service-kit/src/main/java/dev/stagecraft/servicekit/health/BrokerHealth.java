package dev.stagecraft.servicekit.health;

import dev.stagecraft.platform.kafka.EventConsumer;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * Readiness detail {@code broker}: DOWN, naming Kafka, while the service's consumer has no
 * connection to any broker (its {@link EventConsumer#lastOutage} is under two seconds old; the
 * consumer checks about twice a second), UP otherwise. Declared as a bean by each service that
 * consumes events.
 *
 * <p>Thread-safe: reads a volatile instant.
 */
public final class BrokerHealth extends AbstractHealthIndicator<Map<String, Object>> {
  static final Duration RECENT = Duration.ofSeconds(2);
  private final Supplier<Instant> lastOutage;
  private final Clock clock;

  /**
   * @param io where the checks run (Micronaut's {@code TaskExecutors.IO}: a bean made by a factory
   *     method does not get it injected as a subclass of {@code AbstractHealthIndicator} does)
   */
  public BrokerHealth(Supplier<Instant> lastOutage, Clock clock, ExecutorService io) {
    this.lastOutage = lastOutage;
    this.clock = clock;
    setExecutorService(io);
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("broker", "Kafka");
    Instant outage = lastOutage.get();
    if (outage != null && outage.isAfter(clock.instant().minus(RECENT))) {
      healthStatus = HealthStatus.DOWN;
      detail.put(
          "error", "no connection to any Kafka broker (last seen without one at " + outage + ")");
    } else {
      healthStatus = HealthStatus.UP;
    }
    return detail;
  }

  @Override
  protected String getName() {
    return "broker";
  }
}
