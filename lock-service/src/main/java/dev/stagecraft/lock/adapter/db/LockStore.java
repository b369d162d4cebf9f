package dev.stagecraft.lock.adapter.db;

import dev.stagecraft.lock.lease.LockDecider.Decision;
import dev.stagecraft.lock.lease.LockEvent;
import dev.stagecraft.lock.lease.LockLease;
import dev.stagecraft.lock.lease.QueuedHolder;
import dev.stagecraft.lock.lease.SupersededHolder;
import dev.stagecraft.lock.lease.WorkspaceLock;
import dev.stagecraft.servicekit.db.Sql;
import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * Workspace locks in PostgreSQL (schema {@code lock}).
 *
 * <p>Concurrency: {@link #decide} runs the whole read–decide–write cycle in one transaction that
 * first takes the workspace's {@code lock.fencing_counters} row {@code FOR UPDATE}. Every change to
 * a workspace's lock goes through that row, so two lock-service instances (or threads) can never
 * both grant the lock or issue the same fencing token: correctness comes from the database, not
 * from the JVM.
 *
 * <p>Round trips (ADR 0020): a command is two — {@code lock.load_workspace} (counter row {@code FOR
 * UPDATE}, lease, queue and superseded notes in one result), then {@code lock.save_workspace}
 * (everything the decision changed, audit rows included, in one call) sent together with the {@code
 * COMMIT} (one message, one round trip; the driver's {@code commit()} afterwards sees the session
 * idle and sends nothing). A command that changes nothing sends only the commit. Both functions are
 * plain data access (migration V6); the decision stays in {@link
 * dev.stagecraft.lock.lease.LockDecider}.
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
      return decide(c, tenant, workspace, decider);
    }
  }

  /**
   * As {@link #decide(String, String, Function)}, on a connection the caller owns: the transaction
   * is committed or rolled back, the connection is left open in auto-commit off.
   */
  public <R> Decision<R> decide(
      Connection c, String tenant, String workspace, Function<WorkspaceLock, Decision<R>> decider)
      throws SQLException {
    c.setAutoCommit(false);
    try {
      WorkspaceLock current = load(c, tenant, workspace);
      Decision<R> decision = decider.apply(current);
      if (!decision.events().isEmpty()) {
        save(c, tenant, workspace, current, decision.events(), true);
      }
      c.commit(); // sends nothing when the save committed
      return decision;
    } catch (SQLException | RuntimeException e) {
      Sql.rollbackAfter(c, e);
      throw e;
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
      Collection<String> workspaces,
      Function<SortedMap<String, WorkspaceLock>, T> decider,
      Function<T, Map<String, Decision<?>>> decisionsOf)
      throws SQLException {
    SortedMap<String, WorkspaceLock> current = new TreeMap<>();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        for (String ws : new TreeSet<>(workspaces)) {
          current.put(ws, load(c, tenant, ws));
        }
        T outcome = decider.apply(current);
        for (var e : decisionsOf.apply(outcome).entrySet()) {
          List<LockEvent> events = e.getValue().events();
          if (!events.isEmpty()) {
            save(c, tenant, e.getKey(), current.get(e.getKey()), events, false);
          }
        }
        c.commit();
        return outcome;
      } catch (SQLException | RuntimeException e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /** The lock as last committed, without taking row locks (for reads). */
  public WorkspaceLock read(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return read(c, tenant, workspace);
    }
  }

  /**
   * As {@link #read(String, String)}, on a connection the caller owns; a transaction the reads
   * opened (auto-commit off) is committed before returning.
   */
  public WorkspaceLock read(Connection c, String tenant, String workspace) throws SQLException {
    WorkspaceLock lock = loadRows(c, tenant, workspace, readCounter(c, tenant, workspace, false));
    if (!c.getAutoCommit()) {
      c.commit();
    }
    return lock;
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
      Instant at) {}

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
    return publishOutbox(
        "expired",
        "lock_id, holder, fencing_token, at",
        limit,
        rs ->
            new UnpublishedExpiry(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getLong(6),
                rs.getTimestamp(7).toInstant()),
        UnpublishedExpiry::id,
        publisher::publish);
  }

  /**
   * A force-unlock in the audit trail that is not published yet (migration V5).
   *
   * @param clientLockId the lock's id as the caller named it (falls back to {@code lockId})
   * @param via {@code rest} or {@code terraform-http-backend} ({@code rest} when not recorded)
   */
  public record UnpublishedForceRelease(
      long id,
      String tenant,
      String workspace,
      String lockId,
      String holder,
      long fencingToken,
      String actor,
      String reason,
      String via,
      String clientLockId,
      Instant at) {}

  /** Publishes force-unlocks: the outbox side of {@link #publishForceReleases}. */
  @FunctionalInterface
  public interface ForceReleasePublisher {
    /** Publishes one force-unlock and returns once the broker has it; throws when it could not. */
    void publish(UnpublishedForceRelease forceRelease);
  }

  /**
   * Publishes up to {@code limit} unpublished force-unlocks ({@code force_released} audit rows,
   * written in the transaction of the release itself), oldest first, and marks them published —
   * with the same claiming, at-least-once and stop-at-first-failure rules as {@link
   * #publishExpiries}.
   *
   * @return how many were published
   */
  public int publishForceReleases(int limit, ForceReleasePublisher publisher) throws SQLException {
    return publishOutbox(
        "force_released",
        "lock_id, holder, fencing_token, actor, reason, via, client_lock_id, at",
        limit,
        rs ->
            new UnpublishedForceRelease(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getLong(6),
                rs.getString(7),
                rs.getString(8),
                rs.getString(9) == null ? "rest" : rs.getString(9),
                rs.getString(10) == null ? rs.getString(4) : rs.getString(10),
                rs.getTimestamp(11).toInstant()),
        UnpublishedForceRelease::id,
        publisher::publish);
  }

  @FunctionalInterface
  private interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private <T> int publishOutbox(
      String type,
      String columns,
      int limit,
      RowReader<T> reader,
      ToLongFunction<T> idOf,
      Consumer<T> publisher)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      int published = 0;
      try {
        List<T> rows = new ArrayList<>();
        try (PreparedStatement ps =
                Sql.prepare(
                    c,
                    "SELECT id, tenant, workspace, "
                        + columns
                        + " FROM lock.lock_events WHERE type = ? AND published_at IS NULL"
                        + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED",
                    type,
                    limit);
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(reader.read(rs));
          }
        }
        RuntimeException failure = null;
        for (T row : rows) {
          try {
            publisher.accept(row);
          } catch (RuntimeException e) {
            failure = e;
            break;
          }
          Sql.update(
              c,
              "UPDATE lock.lock_events SET published_at = ? WHERE id = ?",
              clock.instant(),
              idOf.applyAsLong(row));
          published++;
        }
        c.commit();
        if (failure != null) {
          throw failure;
        }
        return published;
      } catch (SQLException | RuntimeException e) {
        Sql.rollbackAfter(c, e); // a no-op after the commit above
        throw e;
      }
    }
  }

  /** The workspace's lock, its counter row taken {@code FOR UPDATE}: one round trip. */
  private static WorkspaceLock load(Connection c, String tenant, String workspace)
      throws SQLException {
    long lastToken = 0;
    LockLease lease = null;
    List<QueuedHolder> queue = new ArrayList<>();
    List<SupersededHolder> superseded = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT kind, holder, lock_id, token, t1, t2, seconds, txt, coalescing_key"
                + " FROM lock.load_workspace(?, ?)")) {
      ps.setString(1, tenant);
      ps.setString(2, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          switch (rs.getString(1)) {
            case "counter" -> lastToken = rs.getLong(4);
            case "lease" ->
                lease =
                    new LockLease(
                        rs.getString(3),
                        rs.getString(2),
                        rs.getLong(4),
                        rs.getTimestamp(5).toInstant(),
                        Duration.ofSeconds(rs.getLong(7)),
                        rs.getTimestamp(6).toInstant(),
                        rs.getString(8));
            case "queue" ->
                queue.add(
                    new QueuedHolder(
                        rs.getString(2),
                        rs.getTimestamp(5).toInstant(),
                        rs.getTimestamp(6).toInstant(),
                        rs.getString(9)));
            case "superseded" ->
                superseded.add(
                    new SupersededHolder(
                        rs.getString(2),
                        rs.getString(8),
                        rs.getString(9),
                        rs.getTimestamp(5).toInstant()));
            default -> throw new SQLException("unexpected row kind " + rs.getString(1));
          }
        }
      }
    }
    return new WorkspaceLock(lease, lastToken, queue, superseded);
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
   * Writes what {@code events} change in {@code before} — each table only when its part changed —
   * and their audit rows (acquired, released, force-released with actor, reason, via and the
   * caller's lock id, expired, enqueued, abandoned, superseded; not heartbeats): one round trip.
   *
   * @param commit whether the same message also commits the transaction (the last write of a
   *     command); if the function fails, the {@code COMMIT} is not run and the caller rolls back
   */
  private void save(
      Connection c,
      String tenant,
      String workspace,
      WorkspaceLock before,
      List<LockEvent> events,
      boolean commit)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lock.save_workspace(" + SAVE_PARAMETERS + ")" + (commit ? "; COMMIT" : ""))) {
      bindSave(c, ps, tenant, workspace, before, events);
      ps.execute(); // a function call and, with commit, the COMMIT: no result the caller needs
    }
  }

  /** The 30 parameters of {@code lock.save_workspace}. */
  private static final String SAVE_PARAMETERS =
      "?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?, ?::timestamptz, ?, ?, ?,"
          + " ?::text[]::timestamptz[], ?::text[]::timestamptz[], ?, ?, ?, ?, ?,"
          + " ?::text[]::timestamptz[], ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?";

  /** Binds the save parameters: the workspace, what changed, the audit rows. */
  private void bindSave(
      Connection c,
      PreparedStatement ps,
      String tenant,
      String workspace,
      WorkspaceLock before,
      List<LockEvent> events)
      throws SQLException {
    WorkspaceLock next = before.applyAll(events);
    int i = 0;
    ps.setString(++i, tenant);
    ps.setString(++i, workspace);
    if (next.lastFencingToken() != before.lastFencingToken()) {
      ps.setLong(++i, next.lastFencingToken());
    } else {
      ps.setNull(++i, Types.BIGINT);
    }
    i = bindLease(ps, i, before.current(), next.current());
    boolean queueChanged = !before.queue().equals(next.queue());
    List<QueuedHolder> queue = queueChanged ? next.queue() : List.of();
    ps.setBoolean(++i, queueChanged);
    ps.setArray(++i, texts(c, queue.stream().map(QueuedHolder::holder)));
    ps.setArray(++i, texts(c, queue.stream().map(q -> q.enqueuedAt().toString())));
    ps.setArray(++i, texts(c, queue.stream().map(q -> q.lastSeenAt().toString())));
    ps.setArray(++i, texts(c, queue.stream().map(QueuedHolder::coalescingKey)));
    boolean supersededChanged = !before.superseded().equals(next.superseded());
    List<SupersededHolder> notes = supersededChanged ? next.superseded() : List.of();
    ps.setBoolean(++i, supersededChanged);
    ps.setArray(++i, texts(c, notes.stream().map(SupersededHolder::holder)));
    ps.setArray(++i, texts(c, notes.stream().map(SupersededHolder::byHolder)));
    ps.setArray(++i, texts(c, notes.stream().map(SupersededHolder::coalescingKey)));
    ps.setArray(++i, texts(c, notes.stream().map(n -> n.supersededAt().toString())));
    ps.setString(++i, clock.instant().toString());
    List<AuditRow> audit =
        events.stream().map(LockStore::auditRow).filter(Objects::nonNull).toList();
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::type)));
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::lockId)));
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::holder)));
    ps.setArray(
        ++i, c.createArrayOf("int8", audit.stream().map(AuditRow::token).toArray(Long[]::new)));
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::actor)));
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::reason)));
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::via)));
    ps.setArray(++i, texts(c, audit.stream().map(AuditRow::clientLockId)));
  }

  /** Binds whether the lease changed and, if so, the new one (nulls when the lock is free). */
  private static int bindLease(PreparedStatement ps, int i, LockLease before, LockLease lease)
      throws SQLException {
    boolean leaseChanged = !Objects.equals(before, lease);
    ps.setBoolean(++i, leaseChanged);
    boolean hasLease = leaseChanged && lease != null;
    ps.setString(++i, hasLease ? lease.lockId() : null);
    ps.setString(++i, hasLease ? lease.holder() : null);
    if (hasLease) {
      ps.setLong(++i, lease.fencingToken());
    } else {
      ps.setNull(++i, Types.BIGINT);
    }
    ps.setString(++i, hasLease ? lease.acquiredAt().toString() : null);
    if (hasLease) {
      ps.setLong(++i, lease.leaseDuration().toSeconds());
    } else {
      ps.setNull(++i, Types.BIGINT);
    }
    ps.setString(++i, hasLease ? lease.leaseExpiresAt().toString() : null);
    ps.setString(++i, hasLease ? lease.info() : null);
    return i;
  }

  /** One row of the audit trail ({@code lock.lock_events}). */
  private record AuditRow(
      String type,
      String lockId,
      String holder,
      Long token,
      String actor,
      String reason,
      String via,
      String clientLockId) {}

  /** The audit row of {@code event}, or null for the events the trail does not keep. */
  private static AuditRow auditRow(LockEvent event) {
    String type = event.typeName();
    String holder = event.holder();
    return switch (event) {
      case LockEvent.Acquired a ->
          new AuditRow(
              type, a.lease().lockId(), holder, a.lease().fencingToken(), null, null, null, null);
      case LockEvent.Released r ->
          new AuditRow(type, r.lockId(), holder, r.fencingToken(), null, null, null, null);
      case LockEvent.ForceReleased f ->
          new AuditRow(
              type,
              f.lockId(),
              holder,
              f.fencingToken(),
              f.actor(),
              f.reason(),
              f.via(),
              f.clientLockId());
      case LockEvent.Expired e ->
          new AuditRow(type, e.lockId(), holder, e.fencingToken(), null, null, null, null);
      case LockEvent.Enqueued e -> new AuditRow(type, null, holder, null, null, null, null, null);
      case LockEvent.Abandoned a -> new AuditRow(type, null, holder, null, null, null, null, null);
      case LockEvent.Superseded x ->
          new AuditRow(
              type,
              null,
              holder,
              null,
              x.byHolder(),
              "replaced by a newer request with coalescing key '" + x.coalescingKey() + "'",
              null,
              null);
      case LockEvent.SupersededForgotten f -> null;
      case LockEvent.Renewed r -> null;
      case LockEvent.StillWaiting w -> null;
    };
  }

  private static Array texts(Connection c, Stream<String> values) throws SQLException {
    return c.createArrayOf("text", values.toArray(String[]::new));
  }
}
