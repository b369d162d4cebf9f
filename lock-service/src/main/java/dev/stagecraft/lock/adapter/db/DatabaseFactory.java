package dev.stagecraft.lock.adapter.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.flywaydb.core.Flyway;

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
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(10);
    config.setPoolName("lock");
    HikariDataSource dataSource = new HikariDataSource(config);
    try {
      Flyway.configure()
          .dataSource(dataSource)
          .schemas("lock")
          .locations("classpath:db/migration")
          .load()
          .migrate();
    } catch (RuntimeException e) {
      dataSource.close();
      throw e;
    }
    return dataSource;
  }

  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }
}
