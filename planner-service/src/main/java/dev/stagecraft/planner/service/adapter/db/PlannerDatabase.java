package dev.stagecraft.planner.service.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.PlannerSettings;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.servicekit.health.DatabaseHealth;
import dev.stagecraft.servicekit.http.DatabaseProblemHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

/**
 * The planner's database (schema {@code planner}, Flyway migrations in {@code db/migration}) and
 * its stores. The pool is created and migrated eagerly, so a wrong database fails the start. The
 * runs this instance left unfinished in its previous life are resumed or ended at startup by the
 * adapter's {@code RunRecovery} (docs/adr/0029).
 */
@Factory
public class PlannerDatabase {

  @Context
  @Bean(preDestroy = "close")
  HikariDataSource plannerDataSource(
      @Value("${stagecraft.db.url}") String url,
      @Value("${stagecraft.db.user}") String user,
      @Value("${stagecraft.db.password}") String password,
      MeterRegistry meters) {
    return Databases.measured(
        Databases.migrateAndPool(url, user, password, "planner", "classpath:db/migration"), meters);
  }

  /** Readiness detail {@code database}: DOWN, naming PostgreSQL, while it cannot be reached. */
  @Singleton
  DatabaseHealth databaseHealth(
      HikariDataSource pool, @Named(TaskExecutors.IO) ExecutorService io) {
    return new DatabaseHealth(pool, io);
  }

  /**
   * A database that cannot be reached (it restarts) answers the public API 503 with Retry-After, as
   * the lock and state services answer, not 500 (found by the chaos soak's PostgreSQL restarts).
   */
  @Singleton
  DatabaseProblemHandler databaseProblemHandler() {
    return new DatabaseProblemHandler();
  }

  @Singleton
  RunStore runStore(HikariDataSource dataSource, PlannerSettings settings, SecretsKeyring secrets)
      throws SQLException {
    // the runs this instance left unfinished are resumed or ended by RunRecovery (ADR 0029)
    return new RunStore(dataSource, Clock.systemUTC(), settings.getInstanceId(), secrets);
  }

  @Singleton
  RunJournalStore runJournalStore(
      HikariDataSource dataSource,
      PlannerSettings settings,
      @Value("${stagecraft.planner.run-log-max-lines:100000}") String maxLines) {
    // every run's log, so any instance serves it and a restart keeps it (docs/adr/0032)
    int max;
    try {
      max = Integer.parseInt(maxLines.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES must be a whole number of output lines kept per"
              + " run (default 100000), got '"
              + maxLines
              + "'");
    }
    // only runs this instance owns: a paused instance's runs adopted meanwhile are fenced (ADR
    // 0039)
    return new RunJournalStore(dataSource, max, settings.getInstanceId());
  }

  /**
   * The one connection per instance that listens for recorded journal entries and wakes the
   * followers of those runs (docs/adr/0037); opened outside the pool.
   */
  @Singleton
  @Bean(preDestroy = "close")
  RunJournalFollowers runJournalFollowers(
      HikariDataSource dataSource,
      @Value("${stagecraft.planner.run-log-reread:10s}") Duration reread) {
    return new RunJournalFollowers(
            () ->
                DriverManager.getConnection(
                    dataSource.getJdbcUrl(), dataSource.getUsername(), dataSource.getPassword()),
            reread)
        .start();
  }

  /**
   * Deletes the journals of runs that ended longer ago than {@code
   * STAGECRAFT_PLANNER_RUN_LOG_RETENTION}; unset (the default), journals are kept forever and
   * nothing runs.
   */
  @Context
  @Bean(preDestroy = "close")
  RunJournalRetention runJournalRetention(
      HikariDataSource dataSource,
      @Value("${stagecraft.planner.run-log-retention:}") String retention) {
    return new RunJournalRetention(
            dataSource, Clock.systemUTC(), RunJournalRetention.parseRetention(retention))
        .start();
  }

  @Singleton
  RunRequestStore runRequestStore(
      HikariDataSource dataSource,
      SecretsKeyring secrets,
      ConfigurationVersionStore configurationVersions) {
    return new RunRequestStore(dataSource, Clock.systemUTC(), secrets, configurationVersions);
  }

  @Singleton
  WorkspaceStore workspaceStore(HikariDataSource dataSource) {
    return new WorkspaceStore(dataSource, Clock.systemUTC());
  }

  @Singleton
  ConfigurationVersionStore configurationVersionStore(
      HikariDataSource dataSource, SecretsKeyring keyring) {
    // sealed at rest when a key is configured (docs/adr/0024)
    return new ConfigurationVersionStore(dataSource, Clock.systemUTC(), keyring);
  }
}
