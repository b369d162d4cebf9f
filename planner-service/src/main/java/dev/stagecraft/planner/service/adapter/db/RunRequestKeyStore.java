package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.planner.service.run.IdempotencyKeys;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Idempotency keys of run triggers in {@code planner.run_request_keys} (migration V1_1). {@link
 * #record} inserts with {@code ON CONFLICT DO NOTHING} on the primary key (tenant, key), so of two
 * planner instances recording the same key at once exactly one wins and starts the run. Thread-safe
 * (a connection per call).
 *
 * <p>The public API's {@code Idempotency-Key} ({@link #findApiKey}, {@link #recordApiKey}) uses the
 * same table with keys {@code api/<workspace>/<key>} and the digest of the request body (migration
 * V1_2); unlike a trigger's key, such a key may be recorded anew once it is older than the
 * retention window.
 */
public final class RunRequestKeyStore implements IdempotencyKeys {
  /** How old a key recorded before its recorder was noted must be to be taken over. */
  static final Duration UNNAMED_RECORDER_AGE = Duration.ofMinutes(10);

  private final DataSource dataSource;
  private final Clock clock;
  private final String instanceId;
  private final String incarnation;

  /** A store that records keys without naming their recorder (the public API's keys). */
  public RunRequestKeyStore(DataSource dataSource, Clock clock) {
    this(dataSource, clock, null, null);
  }

  /**
   * A store that names the planner instance incarnation recording each trigger key, so that a
   * redelivered trigger can take over a key whose recorder died before the run's first record
   * ({@link #claimUnrecorded}). The incarnation must be registered in {@code planner.instances}
   * before the first key is recorded.
   */
  public RunRequestKeyStore(
      DataSource dataSource, Clock clock, String instanceId, String incarnation) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.instanceId = instanceId;
    this.incarnation = incarnation;
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
                    + " (tenant, idempotency_key, run_id, workspace, recorded_at, recorded_by,"
                    + " recorded_by_incarnation) VALUES (?, ?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT (tenant, idempotency_key) DO NOTHING")) {
      s.setString(1, tenant);
      s.setString(2, idempotencyKey);
      s.setString(3, runId);
      s.setString(4, workspace);
      s.setTimestamp(5, Timestamp.from(clock.instant()));
      s.setString(6, instanceId);
      s.setString(7, incarnation);
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IllegalStateException("could not record idempotency key: " + e.getMessage(), e);
    }
  }

  /**
   * Takes the key over when its run has no record in {@code planner.runs} and the incarnation that
   * recorded it is not alive in {@code planner.instances} (not registered as that incarnation, or
   * adopted, or its lease expired by the database's clock; a key from before recorders were noted
   * only once it is {@link #UNNAMED_RECORDER_AGE} old): one UPDATE, whose conditions PostgreSQL
   * checks again on the row it locks, so of two takers the second finds the first alive.
   */
  @Override
  public Claim claimUnrecorded(String tenant, String idempotencyKey) {
    if (instanceId == null) {
      return Claim.RECORDED; // this store does not drive trigger keys
    }
    try (Connection c = dataSource.getConnection()) {
      int taken =
          Sql.update(
              c,
              "UPDATE planner.run_request_keys k SET recorded_by = ?, recorded_by_incarnation = ?,"
                  + " recorded_at = ? WHERE k.tenant = ? AND k.idempotency_key = ?"
                  + " AND NOT EXISTS (SELECT 1 FROM planner.runs r WHERE r.id = k.run_id)"
                  + " AND (k.recorded_by IS NOT NULL OR k.recorded_at < ?)"
                  + " AND NOT EXISTS (SELECT 1 FROM planner.instances i"
                  + " WHERE i.instance_id = k.recorded_by"
                  + " AND i.incarnation = k.recorded_by_incarnation AND i.adopted_by IS NULL"
                  + " AND i.renewed_at + i.lease_ms * interval '1 millisecond' >= now())",
              instanceId,
              incarnation,
              clock.instant(),
              tenant,
              idempotencyKey,
              clock.instant().minus(UNNAMED_RECORDER_AGE));
      if (taken == 1) {
        return Claim.TAKEN_OVER;
      }
      // not taken: recorded, or its recorder lives. This incarnation's own key whose run it does
      // not hold counts as recorded (it launched that run; asking again would never end)
      try (PreparedStatement s =
              Sql.prepare(
                  c,
                  "SELECT EXISTS (SELECT 1 FROM planner.runs r WHERE r.id = k.run_id)"
                      + " OR (k.recorded_by = ? AND k.recorded_by_incarnation = ?)"
                      + " FROM planner.run_request_keys k"
                      + " WHERE k.tenant = ? AND k.idempotency_key = ?",
                  instanceId,
                  incarnation,
                  tenant,
                  idempotencyKey);
          ResultSet r = s.executeQuery()) {
        return !r.next() || r.getBoolean(1) ? Claim.RECORDED : Claim.NOT_YET;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not read the run of idempotency key: " + e.getMessage(), e);
    }
  }

  /**
   * A key of the public API as recorded.
   *
   * @param requestDigest the SHA-256 (hex) of the request body that made the run
   */
  public record ApiKey(String runId, String requestDigest, Instant recordedAt) {}

  /** The record of a public API key ({@code api/<workspace>/<key>}), whatever its age. */
  public Optional<ApiKey> findApiKey(String tenant, String key) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT run_id, request_digest, recorded_at FROM planner.run_request_keys"
                    + " WHERE tenant = ? AND idempotency_key = ?")) {
      s.setString(1, tenant);
      s.setString(2, key);
      try (ResultSet r = s.executeQuery()) {
        return r.next()
            ? Optional.of(new ApiKey(r.getString(1), r.getString(2), r.getTimestamp(3).toInstant()))
            : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read idempotency key: " + e.getMessage(), e);
    }
  }

  /**
   * Records that the public API key makes {@code runId} with a request of {@code requestDigest},
   * before the run starts: inserted when absent, or replacing a record from before {@code
   * expiredBefore} (the retention window passed) — atomically, so of two planners recording the
   * same key at once exactly one wins.
   *
   * @return true when this call recorded it; false when a live record exists (read it with {@link
   *     #findApiKey})
   */
  public boolean recordApiKey(
      String tenant,
      String key,
      String runId,
      String workspace,
      String requestDigest,
      Instant expiredBefore) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO planner.run_request_keys"
                    + " (tenant, idempotency_key, run_id, workspace, recorded_at, request_digest)"
                    + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, idempotency_key) DO UPDATE"
                    + " SET run_id = EXCLUDED.run_id, workspace = EXCLUDED.workspace,"
                    + " recorded_at = EXCLUDED.recorded_at,"
                    + " request_digest = EXCLUDED.request_digest"
                    + " WHERE planner.run_request_keys.recorded_at < ?")) {
      s.setString(1, tenant);
      s.setString(2, key);
      s.setString(3, runId);
      s.setString(4, workspace);
      s.setTimestamp(5, Timestamp.from(clock.instant()));
      s.setString(6, requestDigest);
      s.setTimestamp(7, Timestamp.from(expiredBefore));
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IllegalStateException("could not record idempotency key: " + e.getMessage(), e);
    }
  }
}
