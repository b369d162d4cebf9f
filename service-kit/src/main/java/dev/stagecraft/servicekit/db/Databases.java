package dev.stagecraft.servicekit.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.DriverManager;
import java.time.Duration;
import org.flywaydb.core.Flyway;

/** The connection pool of a service that owns one PostgreSQL schema. */
public final class Databases {
  private Databases() {}

  /**
   * How long a service's start waits for a database that cannot be reached (restarting under a
   * service that was itself started again); longer than that is an outage for the operator, and the
   * service exits saying so.
   */
  static final DatabaseWait START_WAIT =
      new DatabaseWait(Duration.ofMinutes(2), Duration.ofSeconds(1));

  /**
   * Opens a pool (named after the schema) and migrates the schema with Flyway before returning it,
   * so a wrong database fails the service's start, not its first request. A database that cannot be
   * reached yet is waited for (up to two minutes, see {@link DatabaseWait}). The pool is closed
   * when the migration fails; otherwise closing it is the caller's.
   *
   * @param schema the schema the service owns, created and migrated by Flyway
   * @param location where the migrations are, e.g. {@code classpath:db/migration}
   */
  public static HikariDataSource migrateAndPool(
      String url, String user, String password, String schema, String location) {
    return migrateAndPool(url, user, password, schema, location, DEFAULT_CONNECTION_TIMEOUT);
  }

  /**
   * Publishes {@code pool}'s metrics ({@code hikaricp_connections_active}, {@code _pending}, {@code
   * _acquire_seconds} ..., tagged with the pool's name) to {@code meters}; once per pool.
   *
   * @return the pool
   */
  public static HikariDataSource measured(HikariDataSource pool, MeterRegistry meters) {
    pool.setMetricRegistry(meters);
    return pool;
  }

  /** Hikari's own default: how long a request waits for a pooled connection. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(30);

  /**
   * As {@link #migrateAndPool(String, String, String, String, String)}, with how long a request
   * waits for a pooled connection (while the database is down, for one) before it fails with an
   * {@link java.sql.SQLTransientConnectionException}.
   */
  public static HikariDataSource migrateAndPool(
      String url,
      String user,
      String password,
      String schema,
      String location,
      Duration connectionTimeout) {
    START_WAIT.until(url, () -> DriverManager.getConnection(url, user, password));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(10);
    config.setConnectionTimeout(connectionTimeout.toMillis());
    config.setPoolName(schema);
    HikariDataSource dataSource = new HikariDataSource(config);
    try {
      Flyway.configure()
          .dataSource(dataSource)
          .schemas(schema)
          .locations(location)
          .load()
          .migrate();
    } catch (RuntimeException e) {
      dataSource.close();
      throw e;
    }
    return dataSource;
  }
}
