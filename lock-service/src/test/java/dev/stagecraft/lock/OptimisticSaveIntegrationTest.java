package dev.stagecraft.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.lock.adapter.LockService;
import dev.stagecraft.lock.adapter.db.LockStore;
import dev.stagecraft.lock.lease.LockDecider;
import dev.stagecraft.lock.lease.LockDecider.AcquireResult;
import dev.stagecraft.lock.lease.LockDecider.Decision;
import dev.stagecraft.lock.lease.LockDecider.HeartbeatResult;
import dev.stagecraft.lock.lease.TestClock;
import dev.stagecraft.lock.lease.WorkspaceLock;
import dev.stagecraft.servicekit.db.Databases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The one-round-trip path of quick commands (ADR 0038) against a real PostgreSQL: a command on a
 * kept snapshot is one round trip and answers and writes exactly what the two-round-trip path does;
 * a change made by another instance (a command, an expiry sweep, a force-release) or a late row
 * lock is detected by {@code lock.save_workspace_if} and nothing stale is committed; two instances
 * racing on one workspace never grant it twice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OptimisticSaveIntegrationTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration QUEUE_TIMEOUT = Duration.ofSeconds(120);
  private static final Clock UTC_MICROS = Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private HikariDataSource pool;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("lock-optimistic-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    pool =
        Databases.migrateAndPool(
            postgres.jdbcUrl(),
            postgres.user(),
            postgres.password(),
            "lock",
            "classpath:db/migration");
  }

  @AfterAll
  void stop() throws Exception {
    if (pool != null) {
      pool.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * The same script of commands — grants, heartbeats, queueing, coalescing, a superseded holder, an
   * expiry, a force-release, abandonment, repeated releases — on two workspaces, one through a
   * store that keeps snapshots and one through a store that does not (the two-round-trip path),
   * with the same clock and lock ids: same answers, same rows and audit trail, and every command
   * that changes something after the first is one round trip.
   */
  @Test
  void aCommandOnAKeptSnapshotIsOneRoundTripAndAnswersAsTheTwoRoundTripPath() throws Exception {
    // whole microseconds, as PostgreSQL keeps them and the service's clock ticks
    TestClock clock =
        new TestClock(Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MICROS));
    LockStore optimistic = new LockStore(pool, clock, 100, LockStore.DEFAULT_MAX_ROW_WAIT);
    LockStore loading = new LockStore(pool, clock, 0, LockStore.DEFAULT_MAX_ROW_WAIT);
    Side a = new Side(optimistic, decider(clock, "a-"), "a-", "ws-equal-optimistic");
    Side b = new Side(loading, decider(clock, "b-"), "b-", "ws-equal-loading");
    try (Connection ca = database();
        Connection cb = database()) {
      int changing = 0;
      int unchanged = 0;
      List<Step> script = new ArrayList<>();
      script.add((d, s, p) -> d.acquire(s, "r1", LEASE, "first"));
      script.add((d, s, p) -> d.heartbeat(s, p + "lock-1"));
      script.add((d, s, p) -> d.acquire(s, "r2", LEASE, null, true, "k"));
      script.add((d, s, p) -> d.acquire(s, "r3", LEASE, null, true, "k"));
      script.add((d, s, p) -> d.acquire(s, "r2", LEASE, null, true, "k"));
      script.add((d, s, p) -> d.acquire(s, "r4", LEASE, null, false));
      script.add((d, s, p) -> d.release(s, p + "lock-1"));
      script.add((d, s, p) -> d.acquire(s, "r3", LEASE, null, true, "k"));
      script.add((d, s, p) -> d.heartbeat(s, p + "lock-2"));
      script.add(null); // clock + 31 s: lock-2 expires
      script.add((d, s, p) -> d.heartbeat(s, p + "lock-2"));
      script.add((d, s, p) -> d.acquire(s, "r5", LEASE, null, false));
      script.add((d, s, p) -> d.forceRelease(s, p + "lock-3", "ops", "stuck", "rest", "client-3"));
      script.add((d, s, p) -> d.acquire(s, "r6", LEASE, "six"));
      script.add((d, s, p) -> d.acquire(s, "r7", LEASE, null));
      script.add((d, s, p) -> d.acquire(s, "r6", LEASE, "six"));
      script.add((d, s, p) -> d.release(s, p + "lock-4"));
      script.add((d, s, p) -> d.release(s, p + "lock-4"));
      script.add(null); // clock + 31 s … and again below: r7's place times out
      script.add(null);
      script.add(null);
      script.add(null);
      script.add((d, s, p) -> d.acquire(s, "r8", LEASE, null));
      script.add((d, s, p) -> d.release(s, p + "lock-5"));
      for (var step : script) {
        if (step == null) {
          clock.advance(Duration.ofSeconds(31));
          continue;
        }
        Decision<?> viaKept = a.run(ca, step);
        Decision<?> viaLoad = b.run(cb, step);
        assertThat(viaKept.result().toString().replace("a-lock-", "lock-"))
            .isEqualTo(viaLoad.result().toString().replace("b-lock-", "lock-"));
        assertThat(viaKept.events().toString().replace("a-lock-", "lock-"))
            .isEqualTo(viaLoad.events().toString().replace("b-lock-", "lock-"));
        if (viaLoad.events().isEmpty()) {
          unchanged++;
        } else {
          changing++;
        }
      }
      assertThat(rows(a.workspace(), "a-")).isEqualTo(rows(b.workspace(), "b-")).isNotEmpty();
      assertThat(optimistic.stats().optimisticSaves()).isEqualTo(changing - 1);
      assertThat(optimistic.stats().staleSnapshots()).isZero();
      assertThat(optimistic.stats().roundTrips())
          .as("2 for the first command, 1 per later change, 2 per command that changes nothing")
          .isEqualTo(2 + (changing - 1) + 2L * unchanged);
      assertThat(loading.stats().roundTrips()).isEqualTo(2L * (changing + unchanged));
      assertThat(loading.stats().optimisticSaves()).isZero();

      LockStore.Stats before = optimistic.stats();
      for (int i = 0; i < 20; i++) {
        Decision<?> granted = a.run(ca, (d, s, p) -> d.acquire(s, "cycle", LEASE, null));
        String lockId = ((AcquireResult.Granted) granted.result()).lease().lockId();
        assertThat(a.run(ca, (d, s, p) -> d.release(s, lockId)).result()).isEqualTo(true);
      }
      LockStore.Stats after = optimistic.stats();
      assertThat(after.roundTrips() - before.roundTrips()).isEqualTo(40);
      assertThat(after.optimisticSaves() - before.optimisticSaves()).isEqualTo(40);
    }
  }

  /**
   * Another instance grants the lock after this one kept the workspace as free: this instance's
   * decision on its snapshot (grant) is refused by the version check, it decides again on the
   * loaded rows and queues the caller — one holder, one fencing token.
   */
  @Test
  void aGrantByAnotherInstanceIsSeenAndTheStaleGrantIsNotCommitted() throws Exception {
    String ws = "ws-other-instance";
    LockStore storeA = new LockStore(pool, UTC_MICROS);
    LockService a = new LockService(storeA, UTC_MICROS, QUEUE_TIMEOUT.toSeconds());
    LockService b = new LockService(new LockStore(pool, UTC_MICROS), UTC_MICROS, 120);
    try (Connection quick = database()) {
      var first =
          (AcquireResult.Granted) a.acquireNow(quick, "acme", ws, "r1", LEASE, null, true, null);
      a.release(quick, "acme", ws, first.lease().lockId());
      var other =
          (AcquireResult.Granted) b.acquireNow(null, "acme", ws, "r2", LEASE, null, true, null);
      LockStore.Stats before = storeA.stats();

      AcquireResult third = a.acquireNow(quick, "acme", ws, "r3", LEASE, null, true, null);

      assertThat(third).isEqualTo(new AcquireResult.Queued(1));
      assertThat(storeA.stats().staleSnapshots() - before.staleSnapshots()).isEqualTo(1);
      assertThat(storeA.stats().optimisticSaves()).isEqualTo(before.optimisticSaves());
      assertThat(holder(ws)).isEqualTo("r2:" + other.lease().fencingToken());
      assertThat(auditTrail(ws))
          .containsExactly(
              "acquired r1 " + first.lease().fencingToken(),
              "released r1 " + first.lease().fencingToken(),
              "acquired r2 " + other.lease().fencingToken(),
              "enqueued r3 null");
    }
  }

  /**
   * Another instance's expiry sweep records the expiry of a lease this instance kept as held (its
   * clock says the lease still runs): the heartbeat decided on the snapshot (renew) is refused, the
   * reloaded rows answer "lost", and the expired lease is not brought back.
   */
  @Test
  void anExpiryRecordedByAnotherInstanceIsSeenAndTheLeaseIsNotRenewed() throws Exception {
    String ws = "ws-swept";
    LockStore storeA = new LockStore(pool, UTC_MICROS);
    LockService a = new LockService(storeA, UTC_MICROS, QUEUE_TIMEOUT.toSeconds());
    Clock later = Clock.offset(UTC_MICROS, Duration.ofSeconds(10));
    LockService sweeper = new LockService(new LockStore(pool, later), later, 120);
    try (Connection quick = database()) {
      var held =
          (AcquireResult.Granted)
              a.acquireNow(quick, "acme", ws, "r1", Duration.ofSeconds(5), null, true, null);
      assertThat(sweeper.expireOverdue()).isGreaterThanOrEqualTo(1);
      assertThat(holder(ws)).isNull();
      LockStore.Stats before = storeA.stats();

      HeartbeatResult beat = a.heartbeat(quick, "acme", ws, held.lease().lockId());

      assertThat(beat).isInstanceOf(HeartbeatResult.Lost.class);
      assertThat(storeA.stats().staleSnapshots() - before.staleSnapshots()).isEqualTo(1);
      assertThat(holder(ws)).as("the expired lease stays gone").isNull();
      assertThat(auditTrail(ws))
          .containsExactly(
              "acquired r1 " + held.lease().fencingToken(),
              "expired r1 " + held.lease().fencingToken());
    }
  }

  /**
   * A force-release through another instance's waiting route (pool connection): this instance's
   * release decided on the snapshot (release) is refused and, on the loaded rows, changes nothing;
   * the next acquire is one round trip again on the refreshed snapshot.
   */
  @Test
  void aForceReleaseElsewhereIsSeenAndTheNextCommandIsOneRoundTripAgain() throws Exception {
    String ws = "ws-forced";
    LockStore storeA = new LockStore(pool, UTC_MICROS);
    LockService a = new LockService(storeA, UTC_MICROS, QUEUE_TIMEOUT.toSeconds());
    LockService b = new LockService(new LockStore(pool, UTC_MICROS), UTC_MICROS, 120);
    try (Connection quick = database()) {
      var held =
          (AcquireResult.Granted) a.acquireNow(quick, "acme", ws, "r1", LEASE, null, true, null);
      String lockId = held.lease().lockId();
      assertThat(b.forceRelease("acme", ws, lockId, "ops", "stuck")).isPresent();
      LockStore.Stats before = storeA.stats();

      a.release(quick, "acme", ws, lockId);
      LockStore.Stats afterRelease = storeA.stats();
      var next =
          (AcquireResult.Granted) a.acquireNow(quick, "acme", ws, "r2", LEASE, null, true, null);

      assertThat(afterRelease.staleSnapshots() - before.staleSnapshots()).isEqualTo(1);
      assertThat(storeA.stats().optimisticSaves() - afterRelease.optimisticSaves()).isEqualTo(1);
      assertThat(storeA.stats().roundTrips() - afterRelease.roundTrips()).isEqualTo(1);
      assertThat(next.lease().fencingToken()).isEqualTo(held.lease().fencingToken() + 1);
      assertThat(auditTrail(ws))
          .containsExactly(
              "acquired r1 " + held.lease().fencingToken(),
              "force_released r1 " + held.lease().fencingToken(),
              "acquired r2 " + next.lease().fencingToken());
    }
  }

  /**
   * Another session holds the workspace's row (changing nothing) longer than the bound: the
   * optimistic save, whose decision read the clock before that wait, is refused ({@code -2}) and
   * the command is decided again on the loaded rows after the row is free.
   */
  @Test
  void aRowLockHadTooLateRefusesTheOptimisticSave() throws Exception {
    String ws = "ws-late-row";
    LockStore storeA = new LockStore(pool, UTC_MICROS);
    LockService a = new LockService(storeA, UTC_MICROS, QUEUE_TIMEOUT.toSeconds());
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (Connection quick = database();
        Connection blocker = database()) {
      var first =
          (AcquireResult.Granted) a.acquireNow(quick, "acme", ws, "r1", LEASE, null, true, null);
      a.release(quick, "acme", ws, first.lease().lockId());
      long pid = backendPid(quick);
      LockStore.Stats before = storeA.stats();
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        s.execute(
            "SELECT * FROM lock.fencing_counters WHERE tenant = 'acme' AND workspace = '"
                + ws
                + "' FOR UPDATE");
      }
      Future<AcquireResult> acquire =
          executor.submit(() -> a.acquireNow(quick, "acme", ws, "r2", LEASE, null, true, null));
      double boundSeconds = LockStore.DEFAULT_MAX_ROW_WAIT.toMillis() / 1000.0;
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> secondsWaitingForALock(pid) > 3 * boundSeconds);
      blocker.commit();

      var granted = (AcquireResult.Granted) acquire.get(20, TimeUnit.SECONDS);

      assertThat(granted.lease().holder()).isEqualTo("r2");
      assertThat(granted.lease().fencingToken()).isEqualTo(first.lease().fencingToken() + 1);
      assertThat(storeA.stats().slowRowLocks() - before.slowRowLocks()).isEqualTo(1);
      assertThat(storeA.stats().optimisticSaves()).isEqualTo(before.optimisticSaves());
      assertThat(storeA.stats().roundTrips() - before.roundTrips()).isEqualTo(3);
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * Two instances, two threads each, racing on one workspace with acquire-without-queueing +
   * release: the audit trail alternates acquired / released with strictly increasing tokens, so the
   * lock was never granted to two holders at once — although most commands took the one-round-trip
   * path.
   */
  @Test
  void twoInstancesRacingNeverGrantTheLockTwice() throws Exception {
    String ws = "ws-race";
    List<LockStore> stores =
        List.of(new LockStore(pool, UTC_MICROS), new LockStore(pool, UTC_MICROS));
    ExecutorService executor = Executors.newFixedThreadPool(4);
    AtomicInteger grants = new AtomicInteger();
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        LockStore store = stores.get(t % 2);
        LockService service = new LockService(store, UTC_MICROS, 120);
        String holder = "racer-" + t;
        workers.add(
            executor.submit(
                () -> {
                  try (Connection c = database()) {
                    for (int i = 0; i < 60; i++) {
                      AcquireResult r =
                          service.acquireNow(c, "acme", ws, holder, LEASE, null, false, null);
                      if (r instanceof AcquireResult.Granted g) {
                        grants.incrementAndGet();
                        service.release(c, "acme", ws, g.lease().lockId());
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> w : workers) {
        w.get(120, TimeUnit.SECONDS);
      }
    } finally {
      executor.shutdownNow();
    }
    List<String> trail = auditTrail(ws);
    assertThat(trail).hasSize(2 * grants.get());
    long lastToken = 0;
    Set<String> lockIds = new HashSet<>();
    for (int i = 0; i < trail.size(); i += 2) {
      String[] acquired = trail.get(i).split(" ");
      String[] released = trail.get(i + 1).split(" ");
      String around = trail.subList(Math.max(0, i - 4), Math.min(trail.size(), i + 6)).toString();
      assertThat(acquired[0]).as("event %d: %s", i, around).isEqualTo("acquired");
      assertThat(released[0]).as("event %d: %s", i + 1, around).isEqualTo("released");
      assertThat(released[1]).isEqualTo(acquired[1]);
      assertThat(released[2]).isEqualTo(acquired[2]);
      long token = Long.parseLong(acquired[2]);
      assertThat(token).isGreaterThan(lastToken);
      lastToken = token;
    }
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT lock_id FROM lock.lock_events WHERE tenant = 'acme' AND workspace = ?"
                    + " AND type = 'acquired'")) {
      ps.setString(1, ws);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          assertThat(lockIds.add(rs.getString(1))).isTrue();
        }
      }
    }
    assertThat(holder(ws)).isNull();
    long optimistic =
        stores.get(0).stats().optimisticSaves() + stores.get(1).stats().optimisticSaves();
    assertThat(optimistic).as("some commands took the one-round-trip path").isPositive();
  }

  // --- helpers ------------------------------------------------------------------------------

  /** Lock ids {@code <prefix>lock-1, -2, …} (lock ids are unique across workspaces). */
  private static LockDecider decider(Clock clock, String prefix) {
    AtomicInteger ids = new AtomicInteger();
    return new LockDecider(clock, () -> prefix + "lock-" + ids.incrementAndGet(), QUEUE_TIMEOUT);
  }

  /** One command of the script; {@code prefix} is the side's lock-id prefix. */
  @FunctionalInterface
  private interface Step {
    Decision<?> apply(LockDecider decider, WorkspaceLock lock, String prefix);
  }

  /** One workspace driven through one store with its own decider. */
  private record Side(LockStore store, LockDecider decider, String prefix, String workspace) {
    @SuppressWarnings("unchecked")
    Decision<Object> run(Connection c, Step step) throws Exception {
      return store.decide(
          c,
          "acme",
          workspace,
          s -> (Decision<Object>) (Decision<?>) step.apply(decider, s, prefix));
    }
  }

  /** Every stored row of the workspace's lock (tenant, workspace and row ids left out). */
  private List<String> rows(String ws, String prefix) throws Exception {
    List<String> out = new ArrayList<>();
    for (String query :
        List.of(
            "SELECT 'counter', last_token, version FROM lock.fencing_counters",
            "SELECT 'lease', lock_id, holder, fencing_token, acquired_at, lease_seconds,"
                + " lease_expires_at, info FROM lock.locks",
            "SELECT 'queue', holder, position, enqueued_at, last_seen_at, coalescing_key"
                + " FROM lock.queue",
            "SELECT 'superseded', holder, by_holder, coalescing_key, superseded_at"
                + " FROM lock.superseded",
            "SELECT 'event', type, lock_id, holder, fencing_token, at, actor, reason, via,"
                + " client_lock_id, published_at FROM lock.lock_events")) {
      try (Connection c = database();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT * FROM ("
                      + query
                      + " WHERE tenant = 'acme' AND workspace = ?) r"
                      + (query.contains("lock_events") ? "" : " ORDER BY 2"))) {
        ps.setString(1, ws);
        try (ResultSet rs = ps.executeQuery()) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= columns; i++) {
              String value = rs.getString(i);
              row.append(value == null ? null : value.replace(prefix + "lock-", "lock-"))
                  .append('|');
            }
            out.add(row.toString());
          }
        }
      }
    }
    return out;
  }

  /** The audit trail of the workspace, oldest first: "type holder token". */
  private List<String> auditTrail(String ws) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT type, holder, fencing_token FROM lock.lock_events"
                    + " WHERE tenant = 'acme' AND workspace = ? ORDER BY id")) {
      ps.setString(1, ws);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
        }
      }
    }
    return out;
  }

  /** "holder:token" of the stored lease, or null. */
  private String holder(String ws) throws Exception {
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT holder, fencing_token FROM lock.locks WHERE tenant = 'acme'"
                    + " AND workspace = ?")) {
      ps.setString(1, ws);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) + ":" + rs.getLong(2) : null;
      }
    }
  }

  private static long backendPid(Connection c) throws Exception {
    boolean autoCommit = c.getAutoCommit();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      long pid = rs.getLong(1);
      if (!autoCommit) {
        c.commit();
      }
      return pid;
    }
  }

  /** How long backend {@code pid}'s current statement has waited for a lock (0 if it does not). */
  private double secondsWaitingForALock(long pid) throws Exception {
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT extract(epoch FROM clock_timestamp() - query_start) FROM pg_stat_activity"
                    + " WHERE pid = ? AND wait_event_type = 'Lock'")) {
      ps.setLong(1, pid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getDouble(1) : 0;
      }
    }
  }

  private Connection database() throws Exception {
    return DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
  }
}
