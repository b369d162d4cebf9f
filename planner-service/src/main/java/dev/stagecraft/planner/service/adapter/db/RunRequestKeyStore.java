package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.planner.service.run.IdempotencyKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Idempotency keys of run triggers in {@code planner.run_request_keys} (migration V1_1). {@link
 * #record} inserts with {@code ON CONFLICT DO NOTHING} on the primary key (tenant, key), so of two
 * planner instances recording the same key at once exactly one wins and starts the run. Thread-safe
 * (a connection per call).
 */
public final class RunRequestKeyStore implements IdempotencyKeys {
  private final DataSource dataSource;
  private final Clock clock;

  public RunRequestKeyStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  @Override
  public Optional<String> runFor(String tenant, String idempotencyKey) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT run_id FROM planner.run_request_keys"
                    + " WHERE tenant = ? AND idempotency_key = ?")) {
      s.setString(1, tenant);
      s.setString(2, idempotencyKey);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read idempotency key: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean record(String tenant, String idempotencyKey, String runId, String workspace) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO planner.run_request_keys"
                    + " (tenant, idempotency_key, run_id, workspace, recorded_at)"
                    + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, idempotency_key) DO NOTHING")) {
      s.setString(1, tenant);
      s.setString(2, idempotencyKey);
      s.setString(3, runId);
      s.setString(4, workspace);
      s.setTimestamp(5, Timestamp.from(clock.instant()));
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IllegalStateException("could not record idempotency key: " + e.getMessage(), e);
    }
  }
}
