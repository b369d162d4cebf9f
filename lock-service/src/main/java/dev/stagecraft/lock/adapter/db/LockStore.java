package dev.stagecraft.lock.adapter.db;

import dev.stagecraft.lock.lease.LockDecider.Decision;
import dev.stagecraft.lock.lease.LockEvent;
import dev.stagecraft.lock.lease.LockLease;
import dev.stagecraft.lock.lease.QueuedHolder;
import dev.stagecraft.lock.lease.WorkspaceLock;
import dev.stagecraft.servicekit.db.Sql;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Workspace locks in PostgreSQL (schema {@code lock}).
 *
 * <p>Concurrency: {@link #decide} runs the whole read–decide–write cycle in one transaction that
 * first takes the workspace's {@code lock.fencing_counters} row {@code FOR UPDATE}. Every change to
 * a workspace's lock goes through that row, so two lock-service instances (or threads) can never
 * both grant the lock or issue the same fencing token: correctness comes from the database, not
 * from the JVM.
 */
@Singleton
public final class LockStore {
  private final DataSource dataSource;
  private final Clock clock;

  public LockStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /** Loads the lock under a row lock, decides, persists the new state and the audit trail. */
  public <R> Decision<R> decide(
      String tenant, String workspace, Function<WorkspaceLock, Decision<R>> decider)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        WorkspaceLock current = load(c, tenant, workspace);
        Decision<R> decision = decider.apply(current);
        if (!decision.events().isEmpty()) {
          save(c, tenant, workspace, current.applyAll(decision.events()));
          audit(c, tenant, workspace, decision.events());
        }
        c.commit();
        return decision;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** The lock as last committed, without taking row locks (for reads). */
  public WorkspaceLock read(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return loadRows(c, tenant, workspace, readCounter(c, tenant, workspace, false));
    }
  }

  private static WorkspaceLock load(Connection c, String tenant, String workspace)
      throws SQLException {
    Sql.update(
        c,
        "INSERT INTO lock.fencing_counters (tenant, workspace, last_token) VALUES (?, ?, 0)"
            + " ON CONFLICT (tenant, workspace) DO NOTHING",
        tenant,
        workspace);
    return loadRows(c, tenant, workspace, readCounter(c, tenant, workspace, true));
  }

  private static long readCounter(Connection c, String tenant, String workspace, boolean forUpdate)
      throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT last_token FROM lock.fencing_counters WHERE tenant = ? AND workspace = ?"
                    + (forUpdate ? " FOR UPDATE" : ""),
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  private static WorkspaceLock loadRows(
      Connection c, String tenant, String workspace, long lastToken) throws SQLException {
    LockLease lease = null;
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT lock_id, holder, fencing_token, acquired_at, lease_seconds,"
                    + " lease_expires_at, info FROM lock.locks WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      if (rs.next()) {
        lease =
            new LockLease(
                rs.getString(1),
                rs.getString(2),
                rs.getLong(3),
                rs.getTimestamp(4).toInstant(),
                Duration.ofSeconds(rs.getLong(5)),
                rs.getTimestamp(6).toInstant(),
                rs.getString(7));
      }
    }
    List<QueuedHolder> queue = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT holder, enqueued_at, last_seen_at FROM lock.queue"
                    + " WHERE tenant = ? AND workspace = ? ORDER BY position",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        queue.add(
            new QueuedHolder(
                rs.getString(1), rs.getTimestamp(2).toInstant(), rs.getTimestamp(3).toInstant()));
      }
    }
    return new WorkspaceLock(lease, lastToken, queue);
  }

  private static void save(Connection c, String tenant, String workspace, WorkspaceLock next)
      throws SQLException {
    Sql.update(
        c,
        "UPDATE lock.fencing_counters SET last_token = ? WHERE tenant = ? AND workspace = ?"
            + " AND last_token <= ?",
        next.lastFencingToken(),
        tenant,
        workspace,
        next.lastFencingToken());
    Sql.update(c, "DELETE FROM lock.locks WHERE tenant = ? AND workspace = ?", tenant, workspace);
    LockLease lease = next.current();
    if (lease != null) {
      Sql.update(
          c,
          "INSERT INTO lock.locks (tenant, workspace, lock_id, holder, fencing_token,"
              + " acquired_at, lease_seconds, lease_expires_at, info)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          tenant,
          workspace,
          lease.lockId(),
          lease.holder(),
          lease.fencingToken(),
          lease.acquiredAt(),
          lease.leaseDuration().toSeconds(),
          lease.leaseExpiresAt(),
          lease.info());
    }
    Sql.update(c, "DELETE FROM lock.queue WHERE tenant = ? AND workspace = ?", tenant, workspace);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO lock.queue (tenant, workspace, holder, position, enqueued_at,"
                + " last_seen_at) VALUES (?, ?, ?, ?, ?, ?)")) {
      int position = 0;
      for (QueuedHolder q : next.queue()) {
        ps.setString(1, tenant);
        ps.setString(2, workspace);
        ps.setString(3, q.holder());
        ps.setLong(4, ++position);
        ps.setTimestamp(5, Timestamp.from(q.enqueuedAt()));
        ps.setTimestamp(6, Timestamp.from(q.lastSeenAt()));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /**
   * Records acquired, released, force-released (with actor and reason), expired, enqueued and
   * abandoned events (not heartbeats).
   */
  private void audit(Connection c, String tenant, String workspace, List<LockEvent> events)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO lock.lock_events (tenant, workspace, type, lock_id, holder,"
                + " fencing_token, at, actor, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      boolean any = false;
      for (LockEvent event : events) {
        String lockId = null;
        Long token = null;
        String actor = null;
        String reason = null;
        switch (event) {
          case LockEvent.Acquired a -> {
            lockId = a.lease().lockId();
            token = a.lease().fencingToken();
          }
          case LockEvent.Released r -> {
            lockId = r.lockId();
            token = r.fencingToken();
          }
          case LockEvent.ForceReleased f -> {
            lockId = f.lockId();
            token = f.fencingToken();
            actor = f.actor();
            reason = f.reason();
          }
          case LockEvent.Expired e -> {
            lockId = e.lockId();
            token = e.fencingToken();
          }
          case LockEvent.Enqueued e -> {}
          case LockEvent.Abandoned a -> {}
          case LockEvent.Renewed r -> {
            continue;
          }
          case LockEvent.StillWaiting s -> {
            continue;
          }
        }
        ps.setString(1, tenant);
        ps.setString(2, workspace);
        ps.setString(3, event.typeName());
        ps.setString(4, lockId);
        ps.setString(5, event.holder());
        if (token == null) {
          ps.setNull(6, Types.BIGINT);
        } else {
          ps.setLong(6, token);
        }
        ps.setTimestamp(7, Timestamp.from(clock.instant()));
        ps.setString(8, actor);
        ps.setString(9, reason);
        ps.addBatch();
        any = true;
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }
}
