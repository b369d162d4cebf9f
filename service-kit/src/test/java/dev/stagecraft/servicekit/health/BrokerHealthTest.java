package dev.stagecraft.servicekit.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/** The broker readiness detail follows the consumer's last moment without a broker. */
class BrokerHealthTest {
  private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");
  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

  @Test
  void isDownNamingKafkaWhileTheConsumerWasJustWithoutABroker() throws Exception {
    HealthResult r = resultOf(() -> NOW.minusMillis(500));

    assertThat(r.getStatus()).isEqualTo(HealthStatus.DOWN);
    Map<?, ?> details = (Map<?, ?>) r.getDetails();
    assertThat(details.get("broker")).isEqualTo("Kafka");
    assertThat(String.valueOf(details.get("error"))).contains("no connection to any Kafka broker");
  }

  @Test
  void isUpOnceTheLastOutageIsOlderThanTwoSeconds() throws Exception {
    HealthResult r = resultOf(() -> NOW.minusSeconds(3));

    assertThat(r.getStatus()).isEqualTo(HealthStatus.UP);
    Map<?, ?> details = (Map<?, ?>) r.getDetails();
    assertThat(details.containsKey("error")).isFalse();
  }

  /** The indicator's answer, as the health endpoint reads it (on an executor, as a publisher). */
  private HealthResult resultOf(Supplier<Instant> lastOutage) throws Exception {
    try (ExecutorService io = Executors.newVirtualThreadPerTaskExecutor()) {
      AbstractHealthIndicator<?> indicator = new BrokerHealth(lastOutage, clock, io);
      CompletableFuture<HealthResult> result = new CompletableFuture<>();
      indicator
          .getResult()
          .subscribe(
              new Subscriber<HealthResult>() {
                @Override
                public void onSubscribe(Subscription s) {
                  s.request(1);
                }

                @Override
                public void onNext(HealthResult r) {
                  result.complete(r);
                }

                @Override
                public void onError(Throwable t) {
                  result.completeExceptionally(t);
                }

                @Override
                public void onComplete() {}
              });
      return result.get(10, TimeUnit.SECONDS);
    }
  }
}
