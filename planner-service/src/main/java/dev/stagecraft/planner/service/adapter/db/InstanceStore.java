package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The planner instances' liveness rows ({@code planner.instances}, V1_8; docs/adr/0034) and the
 * adoption of a dead instance's runs. Every time is the database's {@code now()}, on both sides of
 * the lease, so the hosts' clocks do not matter. Instance rows are not tenant data; the runs they
 * point at keep their tenant.
 *
 * <p>Thread-safe: every call takes its own connection; the compare-and-sets are single statements
 * or one transaction, so concurrent instances need no other coordination.
 */
public final class InstanceStore {
  private static final String TERMINAL =
      Arrays.stream(RunStatus.values())
          .filter(RunStatus::isTerminal)
          .map(s -> "'" + s.wireName() + "'")
          .collect(Collectors.joining(", "));

  /** What a renewal found. */
  public sealed interface Renewal {
    /** The row is this incarnation's and was renewed. */
    record Renewed() implements Renewal {}

    /**
     * The row is no longer this incarnation's.
     *
     * @param adoptedBy the instance that adopted its runs, or null when a newer process registered
     *     the same instance id (or the row is gone)
     */
    record TakenOver(String adoptedBy) implements Renewal {}
  }

  private final DataSource dataSource;

  public InstanceStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Registers (or registers again, after a restart) {@code instanceId} as alive, as {@code
   * incarnation}, with its lease. A row of an earlier incarnation — expired, adopted or not — is
   * replaced: its runs that were not adopted are this instance's again (docs/adr/0029).
   */
  public void register(String instanceId, String incarnation, Duration lease) throws SQLException {
    register(instanceId, incarnation, lease, null);
  }

  /**
   * {@link #register(String, String, Duration)}, advertising where the instance answers the public
   * API ({@code advertisedUrl}, null: nowhere), so that the others can forward to it what only it
   * can do (docs/adr/0050).
   */
  public void register(String instanceId, String incarnation, Duration lease, String advertisedUrl)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.instances (instance_id, incarnation, started_at, renewed_at,"
              + " lease_ms, advertised_url) VALUES (?, ?, now(), now(), ?, ?)"
              + " ON CONFLICT (instance_id) DO UPDATE"
              + " SET incarnation = excluded.incarnation, started_at = excluded.started_at,"
              + " renewed_at = excluded.renewed_at, lease_ms = excluded.lease_ms,"
              + " adopted_by = NULL, adopted_at = NULL, advertised_url = excluded.advertised_url",
          instanceId,
          incarnation,
          lease.toMillis(),
          advertisedUrl);
    }
  }

  /**
   * The instance recorded as driving a run: its id, where it answers the public API (null when it
   * advertised nowhere, or is not registered) and whether it is alive (registered, not adopted, its
   * lease not expired by the database's clock).
   */
  public record Driver(String instanceId, String advertisedUrl, boolean alive) {}

  /**
   * Who drives {@code runId} of {@code tenant}, by the records; empty when there is no such run.
   */
  public Optional<Driver> driverOf(String tenant, String runId) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT r.instance_id, i.advertised_url, coalesce(i.adopted_by IS NULL"
                    + " AND i.renewed_at + i.lease_ms * interval '1 millisecond' >= now(), false)"
                    + " FROM planner.runs r LEFT JOIN planner.instances i"
                    + " ON i.instance_id = r.instance_id WHERE r.tenant = ? AND r.id = ?",
                tenant,
                runId);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(new Driver(rs.getString(1), rs.getString(2), rs.getBoolean(3)));
    }
  }

  /**
   * Renews the row of {@code instanceId} if it is still {@code incarnation}'s and not adopted (a
   * compare-and-set); else says who took it over.
   */
  public Renewal renew(String instanceId, String incarnation) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      int renewed =
          Sql.update(
              c,
              "UPDATE planner.instances SET renewed_at = now() WHERE instance_id = ?"
                  + " AND incarnation = ? AND adopted_by IS NULL",
              instanceId,
              incarnation);
      if (renewed == 1) {
        return new Renewal.Renewed();
      }
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT adopted_by FROM planner.instances WHERE instance_id = ?"
                      + " AND incarnation = ?",
                  instanceId,
                  incarnation);
          ResultSet rs = ps.executeQuery()) {
        return new Renewal.TakenOver(rs.next() ? rs.getString(1) : null);
      }
    }
  }

  /**
   * The instances other than {@code self} whose lease expired and that still own non-terminal runs:
   * the candidates for adoption.
   */
  public List<String> expiredWithRuns(String self) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT i.instance_id FROM planner.instances i WHERE i.instance_id <> ?"
                    + " AND i.renewed_at + i.lease_ms * interval '1 millisecond' < now()"
                    + " AND EXISTS (SELECT 1 FROM planner.runs r"
                    + " WHERE r.instance_id = i.instance_id AND r.status NOT IN ("
                    + TERMINAL
                    + ")) ORDER BY i.renewed_at",
                self);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * Adopts the runs of {@code deadInstance} for {@code adopter}, atomically: in one transaction,
   * marks the dead instance's row adopted only if its lease is still expired (a compare-and-set
   * checked again after any concurrent writer of the row: a renewal or registration that committed
   * first wins, and of two adopters the second waits for the first and then finds no run left), and
   * moves its non-terminal runs to {@code adopter}. Terminal runs are not touched.
   *
   * @return the adopted runs, oldest first (possibly none), or empty when the instance is alive
   *     (renewed or registered again) or unknown
   */
  public Optional<List<RunStore.UnfinishedRun>> adopt(String deadInstance, String adopter)
      throws SQLException {
    if (deadInstance.equals(adopter)) {
      throw new IllegalArgumentException("an instance cannot adopt its own runs: " + adopter);
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        int marked =
            Sql.update(
                c,
                "UPDATE planner.instances SET adopted_by = ?, adopted_at = now()"
                    + " WHERE instance_id = ?"
                    + " AND renewed_at + lease_ms * interval '1 millisecond' < now()",
                adopter,
                deadInstance);
        if (marked == 0) {
          c.rollback();
          return Optional.empty();
        }
        List<RunStore.UnfinishedRun> runs = RunStore.adoptRuns(c, deadInstance, adopter);
        c.commit();
        return Optional.of(runs);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
