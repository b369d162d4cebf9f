package dev.stagecraft.lock.adapter.db;

import dev.stagecraft.lock.lease.LockDecider.Decision;
import dev.stagecraft.lock.lease.LockEvent;
import dev.stagecraft.lock.lease.LockLease;
import dev.stagecraft.lock.lease.QueuedHolder;
import dev.stagecraft.lock.lease.SupersededHolder;
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
          save(c, tenant, workspace, current, current.applyAll(decision.events()));
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

  /**
   * Loads the locks of several workspaces under row locks taken in their sorted order (the fixed
   * order of every multi-workspace command, so two of them can never deadlock), decides them
   * together, persists each workspace's events and commits — one transaction for all.
   *
   * @param workspaces distinct workspace names
   * @param decider per workspace (same keys) the events to persist and the answer
   */
  public <T> T decideAll(
      String tenant,
      java.util.Collection<String> workspaces,
      Function<java.util.SortedMap<String, WorkspaceLock>, T> decider,
      Function<T, java.util.Map<String, Decision<?>>> decisionsOf)
      throws SQLException {
    java.util.SortedMap<String, WorkspaceLock> current = new java.util.TreeMap<>();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        for (String ws : new java.util.TreeSet<>(workspaces)) {
          current.put(ws, load(c, tenant, ws));
        }
        T outcome = decider.apply(current);
        for (var e : decisionsOf.apply(outcome).entrySet()) {
          List<LockEvent> events = e.getValue().events();
          if (!events.isEmpty()) {
            WorkspaceLock before = current.get(e.getKey());
            save(c, tenant, e.getKey(), before, before.applyAll(events));
            audit(c, tenant, e.getKey(), events);
          }
        }
        c.commit();
        return outcome;
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

  /** A workspace named by tenant and name. */
  public record WorkspaceRef(String tenant, String workspace) {}

  /** Workspaces whose lease ran out by now but whose expiry is not recorded yet. */
  public List<WorkspaceRef> overdue() throws SQLException {
    List<WorkspaceRef> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT tenant, workspace FROM lock.locks WHERE lease_expires_at <= ?"
                    + " ORDER BY lease_expires_at LIMIT 1000",
                clock.instant());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new WorkspaceRef(rs.getString(1), rs.getString(2)));
      }
    }
    return out;
  }

  /** An expiry in the audit trail that is not published yet. */
  public record UnpublishedExpiry(
      long id,
      String tenant,
      String workspace,
      String lockId,
      String holder,
      long fencingToken,
      java.time.Instant at) {}

  /** Publishes expiries: the outbox side of {@link #publishExpiries}. */
  @FunctionalInterface
  public interface ExpiryPublisher {
    /** Publishes one expiry and returns once the broker has it; throws when it could not. */
    void publish(UnpublishedExpiry expiry);
  }

  /**
   * Publishes up to {@code limit} unpublished expiries, oldest first, and marks them published.
   * Rows are claimed with {@code FOR UPDATE SKIP LOCKED}, so several instances share the work
   * without publishing a row twice; a crash between publish and commit publishes that row again (at
   * least once — the event id is derived from the row id, so consumers drop the duplicate). Stops
   * at the first failure (the rest stay for the next round).
   *
   * @return how many were published
   */
  public int publishExpiries(int limit, ExpiryPublisher publisher) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      int published = 0;
      try {
        List<UnpublishedExpiry> rows = new ArrayList<>();
        try (PreparedStatement ps =
                Sql.prepare(
                    c,
                    "SELECT id, tenant, workspace, lock_id, holder, fencing_token, at"
                        + " FROM lock.lock_events WHERE type = 'expired' AND published_at IS NULL"
                        + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED",
                    limit);
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(
                new UnpublishedExpiry(
                    rs.getLong(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5),
                    rs.getLong(6),
                    rs.getTimestamp(7).toInstant()));
          }
        }
        RuntimeException failure = null;
        for (UnpublishedExpiry row : rows) {
          try {
            publisher.publish(row);
          } catch (RuntimeException e) {
            failure = e;
            break;
          }
          Sql.update(
              c,
              "UPDATE lock.lock_events SET published_at = ? WHERE id = ?",
              clock.instant(),
              row.id());
          published++;
        }
        c.commit();
        if (failure != null) {
          throw failure;
        }
        return published;
      } catch (SQLException | RuntimeException e) {
        c.rollback(); // a no-op after the commit above
        throw e;
      }
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
                "SELECT holder, enqueued_at, last_seen_at, coalescing_key FROM lock.queue"
                    + " WHERE tenant = ? AND workspace = ? ORDER BY position",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        queue.add(
            new QueuedHolder(
                rs.getString(1),
                rs.getTimestamp(2).toInstant(),
                rs.getTimestamp(3).toInstant(),
                rs.getString(4)));
      }
    }
    List<SupersededHolder> superseded = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT holder, by_holder, coalescing_key, superseded_at FROM lock.superseded"
                    + " WHERE tenant = ? AND workspace = ? ORDER BY superseded_at",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        superseded.add(
            new SupersededHolder(
                rs.getString(1), rs.getString(2), rs.getString(3), rs.getTimestamp(4).toInstant()));
      }
    }
    return new WorkspaceLock(lease, lastToken, queue, superseded);
  }

  /**
   * Writes what differs between {@code before} and {@code next} (each table only when its part
   * changed: fewer statements per command, the same result).
   */
  private static void save(
      Connection c, String tenant, String workspace, WorkspaceLock before, WorkspaceLock next)
      throws SQLException {
    if (next.lastFencingToken() != before.lastFencingToken()) {
      Sql.update(
          c,
          "UPDATE lock.fencing_counters SET last_token = ? WHERE tenant = ? AND workspace = ?"
              + " AND last_token <= ?",
          next.lastFencingToken(),
          tenant,
          workspace,
          next.lastFencingToken());
    }
    if (!java.util.Objects.equals(before.current(), next.current())) {
      saveLease(c, tenant, workspace, next.current());
    }
    if (!before.queue().equals(next.queue())) {
      saveQueue(c, tenant, workspace, next);
    }
    if (!before.superseded().equals(next.superseded())) {
      saveSuperseded(c, tenant, workspace, next);
    }
  }

  private static void saveLease(Connection c, String tenant, String workspace, LockLease lease)
      throws SQLException {
    Sql.update(c, "DELETE FROM lock.locks WHERE tenant = ? AND workspace = ?", tenant, workspace);
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
  }

  private static void saveQueue(Connection c, String tenant, String workspace, WorkspaceLock next)
      throws SQLException {
    Sql.update(c, "DELETE FROM lock.queue WHERE tenant = ? AND workspace = ?", tenant, workspace);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO lock.queue (tenant, workspace, holder, position, enqueued_at,"
                + " last_seen_at, coalescing_key) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      int position = 0;
      for (QueuedHolder q : next.queue()) {
        ps.setString(1, tenant);
        ps.setString(2, workspace);
        ps.setString(3, q.holder());
        ps.setLong(4, ++position);
        ps.setTimestamp(5, Timestamp.from(q.enqueuedAt()));
        ps.setTimestamp(6, Timestamp.from(q.lastSeenAt()));
        ps.setString(7, q.coalescingKey());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static void saveSuperseded(
      Connection c, String tenant, String workspace, WorkspaceLock next) throws SQLException {
    Sql.update(
        c, "DELETE FROM lock.superseded WHERE tenant = ? AND workspace = ?", tenant, workspace);
    for (SupersededHolder note : next.superseded()) {
      Sql.update(
          c,
          "INSERT INTO lock.superseded (tenant, workspace, holder, by_holder, coalescing_key,"
              + " superseded_at) VALUES (?, ?, ?, ?, ?, ?)",
          tenant,
          workspace,
          note.holder(),
          note.byHolder(),
          note.coalescingKey(),
          note.supersededAt());
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
          case LockEvent.Superseded x -> {
            actor = x.byHolder();
            reason = "replaced by a newer request with coalescing key '" + x.coalescingKey() + "'";
          }
          case LockEvent.SupersededForgotten f -> {
            continue;
          }
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
