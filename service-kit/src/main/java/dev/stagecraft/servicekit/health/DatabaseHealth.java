package dev.stagecraft.servicekit.health;

import com.zaxxer.hikari.HikariDataSource;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;

/**
 * Readiness detail {@code database}: UP when the service's PostgreSQL answers a fresh connection
 * within two seconds, DOWN naming PostgreSQL and the failure otherwise (the service cannot do its
 * work without it). A fresh connection, not one of the pool's: while the database is down a pool
 * borrow waits the pool's whole connection timeout, and a health check must answer at once.
 * Declared as a bean by each service that owns a schema.
 *
 * <p>Thread-safe: each check opens and closes its own connection; {@code healthStatus} is written
 * before the result is read, on the check's own thread (Micronaut's contract).
 */
public final class DatabaseHealth extends AbstractHealthIndicator<Map<String, Object>> {
  private static final int TIMEOUT_SECONDS = 2;
  private final HikariDataSource pool;

  /**
   * @param io where the checks run (Micronaut's {@code TaskExecutors.IO}: a bean made by a factory
   *     method does not get it injected as a subclass of {@code AbstractHealthIndicator} does)
   */
  public DatabaseHealth(HikariDataSource pool, ExecutorService io) {
    this.pool = pool;
    setExecutorService(io);
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("database", "PostgreSQL");
    detail.put("schema", pool.getPoolName());
    Properties props = new Properties();
    props.setProperty("user", pool.getUsername());
    props.setProperty("password", pool.getPassword() == null ? "" : pool.getPassword());
    props.setProperty("connectTimeout", String.valueOf(TIMEOUT_SECONDS));
    props.setProperty("loginTimeout", String.valueOf(TIMEOUT_SECONDS));
    props.setProperty("socketTimeout", String.valueOf(TIMEOUT_SECONDS));
    try (Connection c = DriverManager.getConnection(pool.getJdbcUrl(), props)) {
      if (!c.isValid(TIMEOUT_SECONDS)) {
        throw new SQLException("the connection was not valid");
      }
      healthStatus = HealthStatus.UP;
    } catch (SQLException e) {
      healthStatus = HealthStatus.DOWN;
      detail.put("error", "PostgreSQL cannot be reached: " + e.getMessage());
    }
    return detail;
  }

  @Override
  protected String getName() {
    return "database";
  }
}
