package dev.stagecraft.executor.adapter;

import dev.stagecraft.servicekit.health.BrokerHealth;
import io.micronaut.context.annotation.Factory;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.concurrent.ExecutorService;

/** Readiness detail {@code broker}: DOWN while the dispatch consumer reaches no broker. */
@Factory
class BrokerHealthBeans {
  @Singleton
  BrokerHealth brokerHealth(
      ExecutorBootstrap bootstrap, @Named(TaskExecutors.IO) ExecutorService io) {
    return new BrokerHealth(bootstrap::lastOutage, Clock.systemUTC(), io);
  }
}
