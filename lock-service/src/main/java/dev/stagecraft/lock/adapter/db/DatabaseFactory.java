package dev.stagecraft.lock.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.servicekit.health.DatabaseHealth;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

/**
 * The connection pool and the clock. The pool is created eagerly at startup and the schema migrated
 * with Flyway before anything uses it, so a wrong database fails the start, not the first request.
 */
@Factory
public class DatabaseFactory {

  @Context
  @Bean(preDestroy = "close")
  HikariDataSource dataSource(
      @Value("${stagecraft.db.url}") String url,
      @Value("${stagecraft.db.user}") String user,
      @Value("${stagecraft.db.password}") String password,
      @Value("${stagecraft.db.connection-timeout:30s}") Duration connectionTimeout,
      MeterRegistry meters) {
    return Databases.measured(
        Databases.migrateAndPool(
            url, user, password, "lock", "classpath:db/migration", connectionTimeout),
        meters);
  }

  /** Readiness detail {@code database}: DOWN, naming PostgreSQL, while it cannot be reached. */
  @Singleton
  DatabaseHealth databaseHealth(
      HikariDataSource pool, @Named(TaskExecutors.IO) ExecutorService io) {
    return new DatabaseHealth(pool, io);
  }

  /**
   * UTC in whole microseconds — PostgreSQL's {@code timestamptz} precision — so a lock decided in
   * memory equals the one the database stores and loads back.
   */
  @Singleton
  Clock clock() {
    return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
  }
}
