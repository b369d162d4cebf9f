package dev.stagecraft.lock.adapter.db;

import dev.stagecraft.lock.lease.LockDecider.Decision;
import dev.stagecraft.lock.lease.LockEvent;
import dev.stagecraft.lock.lease.LockLease;
import dev.stagecraft.lock.lease.QueuedHolder;
import dev.stagecraft.lock.lease.SupersededHolder;
import dev.stagecraft.lock.lease.WorkspaceLock;
import dev.stagecraft.servicekit.db.Sql;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Inject;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
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
 *
 * <p>One round trip for the common quick command (ADR 0038): the store keeps, per workspace, the
 * lock it last loaded or saved together with the version of the workspace's counter row (bumped by
 * every save, migration V7) in a bounded LRU map. {@link #decide(Connection, String, String,
 * Function)} (the quick route) decides on that snapshot and sends {@code lock.save_workspace_if}
 * with the expected version and the {@code COMMIT} as one message. The function takes the row
 * {@code FOR UPDATE} and writes only if the version is unchanged and the row lock came within
 * {@link #DEFAULT_MAX_ROW_WAIT} of the statement's start; otherwise it writes nothing and the
 * command runs the two-round-trip path on freshly loaded rows. So a stale snapshot can cost a round
 * trip but never commit a stale decision: correctness still comes from the row lock and the version
 * check in the same transaction, never from the map. A decision without events (a repeated release,
 * a repeated acquire by the holder) takes the two-round-trip path. The map is safe for concurrent
 * use; an entry is dropped on any error and on a refused optimistic save.
 */
@Singleton
public final class LockStore {
  /** Snapshots kept by default ({@code stagecraft.lock.quick.snapshot-cache-size}). */
  public static final int DEFAULT_CACHE_SIZE = 4096;

  /**
   * The longest wait for the workspace row that an optimistic save accepts (measured by the
   * database from the statement's start): the decision's "now" is read before that wait.
   */
  public static final Duration DEFAULT_MAX_ROW_WAIT = Duration.ofMillis(50);

  private final DataSource dataSource;
  private final Clock clock;
  private final Snapshots snapshots;
  private final double maxRowWaitMillis;
  private final LongAdder roundTrips = new LongAdder();
  private final LongAdder optimisticSaves = new LongAdder();
  private final LongAdder staleSnapshots = new LongAdder();
  private final LongAdder slowRowLocks = new LongAdder();

  /** A store with the default snapshot map ({@link #DEFAULT_CACHE_SIZE}) and row-wait bound. */
  public LockStore(DataSource dataSource, Clock clock) {
    this(dataSource, clock, DEFAULT_CACHE_SIZE, DEFAULT_MAX_ROW_WAIT);
  }

  /**
   * @param cacheSize workspaces whose last snapshot is kept (least recently used dropped first); 0
   *     turns the one-round-trip path off (every command loads first)
   * @param maxRowWait the longest wait for the workspace row an optimistic save accepts
   */
  @Inject
  public LockStore(
      DataSource dataSource,
      Clock clock,
      @Value("${stagecraft.lock.quick.snapshot-cache-size:" + DEFAULT_CACHE_SIZE + "}")
          int cacheSize,
      @Value("${stagecraft.lock.quick.max-row-wait:50ms}") Duration maxRowWait) {
    if (cacheSize < 0) {
      throw new IllegalArgumentException(
          "stagecraft.lock.quick.snapshot-cache-size (STAGECRAFT_LOCK_QUICK_SNAPSHOT_CACHE_SIZE)"
              + " must be 0 (off) or more, got "
              + cacheSize);
    }
    this.dataSource = dataSource;
    this.clock = clock;
    this.snapshots = new Snapshots(cacheSize);
    this.maxRowWaitMillis = maxRowWait.toNanos() / 1e6;
  }

  /**
   * Counters since start (for tests and diagnosis).
   *
   * @param roundTrips database round trips of single-workspace commands ({@code decide})
   * @param optimisticSaves commands committed in one round trip on a kept snapshot
   * @param staleSnapshots optimistic saves refused because the workspace had changed
   * @param slowRowLocks optimistic saves refused because the row lock came too late
   */
  public record Stats(
      long roundTrips, long optimisticSaves, long staleSnapshots, long slowRowLocks) {}

  /** The counters as they stand now (each read on its own, not one atomic snapshot). */
  public Stats stats() {
    return new Stats(
        roundTrips.sum(), optimisticSaves.sum(), staleSnapshots.sum(), slowRowLocks.sum());
  }

  /** A workspace's lock as this store last loaded or saved it, with its counter row's version. */
  private record Snapshot(WorkspaceLock lock, long version) {}

  /** Bounded LRU of snapshots; every method holds the map's monitor briefly, never across I/O. */
  private static final class Snapshots {
    private final int capacity;
    private final LinkedHashMap<WorkspaceRef, Snapshot> map;

    Snapshots(int capacity) {
      this.capacity = capacity;
      this.map =
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<WorkspaceRef, Snapshot> eldest) {
              return size() > Snapshots.this.capacity;
            }
          };
    }

    synchronized Snapshot get(WorkspaceRef key) {
      return capacity == 0 ? null : map.get(key);
    }

    synchronized void put(WorkspaceRef key, Snapshot snapshot) {
      if (capacity > 0) {
        map.put(key, snapshot);
      }
    }

    synchronized void remove(WorkspaceRef key) {
      map.remove(key);
    }
  }

  /** Loads the lock under a row lock, decides, persists the new state and the audit trail. */
  public <R> Decision<R> decide(
      String tenant, String workspace, Function<WorkspaceLock, Decision<R>> decider)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return decide(c, tenant, workspace, decider, false);
    }
  }

  /**
   * As {@link #decide(String, String, Function)}, on a connection the caller owns (the quick
   * path's, {@link QuickConnections}): the transaction is committed or rolled back, the connection
   * is left open in auto-commit off. With a kept snapshot of the workspace and a decision that
   * changes something, this is one round trip (the optimistic save, see the class comment); when
   * that save is refused, {@code decider} is applied again to freshly loaded rows (it must be free
   * of side effects beyond its result) and the command takes two more.
   */
  public <R> Decision<R> decide(
      Connection c, String tenant, String workspace, Function<WorkspaceLock, Decision<R>> decider)
      throws SQLException {
    return decide(c, tenant, workspace, decider, true);
  }

  private <R> Decision<R> decide(
      Connection c,
      String tenant,
      String workspace,
      Function<WorkspaceLock, Decision<R>> decider,
      boolean optimistic)
      throws SQLException {
    c.setAutoCommit(false);
    WorkspaceRef key = new WorkspaceRef(tenant, workspace);
    try {
      Snapshot kept = optimistic ? snapshots.get(key) : null;
      if (kept != null) {
        Decision<R> decision = decider.apply(kept.lock());
        if (!decision.events().isEmpty()) {
          WorkspaceLock next = kept.lock().applyAll(decision.events());
          long outcome = saveIfUnchanged(c, tenant, workspace, kept, decision.events());
          roundTrips.increment();
          c.commit(); // sends nothing: the message committed, written or not
          if (outcome > 0) {
            optimisticSaves.increment();
            snapshots.put(key, new Snapshot(next, outcome));
            return decision;
          }
          (outcome == -2 ? slowRowLocks : staleSnapshots).increment();
          snapshots.remove(key);
        }
      }
      Snapshot current = load(c, tenant, workspace);
      roundTrips.increment();
      Decision<R> decision = decider.apply(current.lock());
      Snapshot after = current;
      if (!decision.events().isEmpty()) {
        save(c, tenant, workspace, current.lock(), decision.events(), true);
        after = new Snapshot(current.lock().applyAll(decision.events()), current.version() + 1);
      }
      c.commit(); // sends nothing when the save committed
      roundTrips.increment();
      snapshots.put(key, after); // the row lock was held from the load to the commit
      return decision;
    } catch (SQLException | RuntimeException e) {
      snapshots.remove(key);
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
          current.put(ws, load(c, tenant, ws).lock());
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
      } finally {
        for (String ws : workspaces) {
          snapshots.remove(new WorkspaceRef(tenant, ws)); // versions moved; the next load refills
        }
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

  /**
   * The workspace's lock and its counter row's version, the row taken {@code FOR UPDATE}: one round
   * trip.
   */
  private static Snapshot load(Connection c, String tenant, String workspace) throws SQLException {
    long lastToken = 0;
    long version = 0;
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
            case "counter" -> {
              lastToken = rs.getLong(4);
              version = rs.getLong(7); // V7: the row's version travels in 'seconds'
            }
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
    return new Snapshot(new WorkspaceLock(lease, lastToken, queue, superseded), version);
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
      bindSave(c, ps, 0, tenant, workspace, before, events);
      ps.execute(); // a function call and, with commit, the COMMIT: no result the caller needs
    }
  }

  /**
   * The optimistic save (ADR 0038): {@code lock.save_workspace_if} with the snapshot's version and
   * the {@code COMMIT}, one message, one round trip. The transaction is over when this returns
   * normally — written or not; if the function fails, the {@code COMMIT} is not run and the caller
   * rolls back.
   *
   * @return the row's new version (written), -1 (the version moved: nothing written) or -2 (the row
   *     lock came later than the bound allows: nothing written)
   */
  private long saveIfUnchanged(
      Connection c, String tenant, String workspace, Snapshot kept, List<LockEvent> events)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lock.save_workspace_if(?, ?, " + SAVE_PARAMETERS + "); COMMIT")) {
      ps.setLong(1, kept.version());
      ps.setDouble(2, maxRowWaitMillis);
      bindSave(c, ps, 2, tenant, workspace, kept.lock(), events);
      if (!ps.execute()) {
        throw new SQLException("lock.save_workspace_if returned no result");
      }
      long outcome;
      try (ResultSet rs = ps.getResultSet()) {
        if (!rs.next()) {
          throw new SQLException("lock.save_workspace_if returned no row");
        }
        outcome = rs.getLong(1);
      }
      ps.getMoreResults(); // the COMMIT's (empty) result
      return outcome;
    }
  }

  /** The 30 parameters shared by {@code lock.save_workspace} and {@code save_workspace_if}. */
  private static final String SAVE_PARAMETERS =
      "?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?, ?::timestamptz, ?, ?, ?,"
          + " ?::text[]::timestamptz[], ?::text[]::timestamptz[], ?, ?, ?, ?, ?,"
          + " ?::text[]::timestamptz[], ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?";

  /** Binds the save parameters after index {@code i} (0-based count of those already set). */
  private void bindSave(
      Connection c,
      PreparedStatement ps,
      int i,
      String tenant,
      String workspace,
      WorkspaceLock before,
      List<LockEvent> events)
      throws SQLException {
    WorkspaceLock next = before.applyAll(events);
    LockLease lease = next.current();
    List<String> types = new ArrayList<>();
    List<String> lockIds = new ArrayList<>();
    List<String> holders = new ArrayList<>();
    List<Long> tokens = new ArrayList<>();
    List<String> actors = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    List<String> vias = new ArrayList<>();
    List<String> clientLockIds = new ArrayList<>();
    for (LockEvent event : events) {
      String lockId = null;
      Long token = null;
      String actor = null;
      String reason = null;
      String via = null;
      String clientLockId = null;
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
          via = f.via();
          clientLockId = f.clientLockId();
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
      types.add(event.typeName());
      lockIds.add(lockId);
      holders.add(event.holder());
      tokens.add(token);
      actors.add(actor);
      reasons.add(reason);
      vias.add(via);
      clientLockIds.add(clientLockId);
    }
    boolean leaseChanged = !Objects.equals(before.current(), lease);
    boolean queueChanged = !before.queue().equals(next.queue());
    boolean supersededChanged = !before.superseded().equals(next.superseded());
    ps.setString(++i, tenant);
    ps.setString(++i, workspace);
    if (next.lastFencingToken() != before.lastFencingToken()) {
      ps.setLong(++i, next.lastFencingToken());
    } else {
      ps.setNull(++i, Types.BIGINT);
    }
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
    List<QueuedHolder> queue = queueChanged ? next.queue() : List.of();
    ps.setBoolean(++i, queueChanged);
    ps.setArray(++i, texts(c, queue.stream().map(QueuedHolder::holder)));
    ps.setArray(++i, texts(c, queue.stream().map(q -> q.enqueuedAt().toString())));
    ps.setArray(++i, texts(c, queue.stream().map(q -> q.lastSeenAt().toString())));
    ps.setArray(++i, texts(c, queue.stream().map(QueuedHolder::coalescingKey)));
    List<SupersededHolder> notes = supersededChanged ? next.superseded() : List.of();
    ps.setBoolean(++i, supersededChanged);
    ps.setArray(++i, texts(c, notes.stream().map(SupersededHolder::holder)));
    ps.setArray(++i, texts(c, notes.stream().map(SupersededHolder::byHolder)));
    ps.setArray(++i, texts(c, notes.stream().map(SupersededHolder::coalescingKey)));
    ps.setArray(++i, texts(c, notes.stream().map(n -> n.supersededAt().toString())));
    ps.setString(++i, clock.instant().toString());
    ps.setArray(++i, texts(c, types.stream()));
    ps.setArray(++i, texts(c, lockIds.stream()));
    ps.setArray(++i, texts(c, holders.stream()));
    ps.setArray(++i, c.createArrayOf("int8", tokens.toArray(Long[]::new)));
    ps.setArray(++i, texts(c, actors.stream()));
    ps.setArray(++i, texts(c, reasons.stream()));
    ps.setArray(++i, texts(c, vias.stream()));
    ps.setArray(++i, texts(c, clientLockIds.stream()));
  }

  private static Array texts(Connection c, Stream<String> values) throws SQLException {
    return c.createArrayOf("text", values.toArray(String[]::new));
  }
}
