package dev.stagecraft.state.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.servicekit.db.Databases;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;

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
      @Value("${stagecraft.db.password}") String password) {
    return Databases.migrateAndPool(url, user, password, "state", "classpath:db/migration");
  }

  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }
}
