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
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.instances (instance_id, incarnation, started_at, renewed_at,"
              + " lease_ms) VALUES (?, ?, now(), now(), ?) ON CONFLICT (instance_id) DO UPDATE"
              + " SET incarnation = excluded.incarnation, started_at = excluded.started_at,"
              + " renewed_at = excluded.renewed_at, lease_ms = excluded.lease_ms,"
              + " adopted_by = NULL, adopted_at = NULL",
          instanceId,
          incarnation,
          lease.toMillis());
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
