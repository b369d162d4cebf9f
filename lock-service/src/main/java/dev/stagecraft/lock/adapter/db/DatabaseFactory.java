package dev.stagecraft.lock.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.servicekit.db.Databases;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

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
      @Value("${stagecraft.db.connection-timeout:30s}") Duration connectionTimeout) {
    return Databases.migrateAndPool(
        url, user, password, "lock", "classpath:db/migration", connectionTimeout);
  }

  /**
   * The quick path's own connections (ADR 0030), opened at startup after the pool has migrated the
   * schema. {@code connections} 0 means twice the CPUs (no fewer than the HTTP server's default
   * event-loop threads), so every loop finds an idle one unless some are being replaced.
   */
  @Context
  @Bean(preDestroy = "close")
  QuickConnections quickConnections(
      HikariDataSource migratedPool,
      @Value("${stagecraft.db.url}") String url,
      @Value("${stagecraft.db.user}") String user,
      @Value("${stagecraft.db.password}") String password,
      @Value("${stagecraft.instance-id:lock-1}") String instanceId,
      @Value("${stagecraft.lock.quick.connections:0}") int connections,
      @Value("${stagecraft.lock.quick.statement-timeout:1s}") Duration statementTimeout,
      @Value("${stagecraft.lock.quick.socket-timeout:2s}") Duration socketTimeout) {
    int size = connections > 0 ? connections : 2 * Runtime.getRuntime().availableProcessors();
    return new QuickConnections(
        url,
        user,
        password,
        "stagecraft-lock-quick:" + instanceId,
        size,
        statementTimeout,
        socketTimeout);
  }

  /**
   * UTC in whole microseconds — PostgreSQL's {@code timestamptz} precision — so a lock the store
   * keeps after a save (ADR 0038) equals the one it would load back.
   */
  @Singleton
  Clock clock() {
    return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
  }
}
