package dev.stagecraft.state.adapter.kafka;

import dev.stagecraft.servicekit.health.BrokerHealth;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.concurrent.ExecutorService;

/** Readiness detail {@code broker}: DOWN while the action-result consumer reaches no broker. */
@Factory
class BrokerHealthBeans {
  @Singleton
  @Requires(beans = ActionResultListener.class)
  BrokerHealth brokerHealth(
      ActionResultListener listener, @Named(TaskExecutors.IO) ExecutorService io) {
    return new BrokerHealth(listener::lastOutage, Clock.systemUTC(), io);
  }
}
