package dev.stagecraft.chaos.source.db;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.invariant.ChaosChecker;
import dev.stagecraft.chaos.invariant.Violation;
import dev.stagecraft.chaos.invariant.ViolationKind;
import dev.stagecraft.chaos.source.ActionKey;
import dev.stagecraft.chaos.source.LockAuditTrail;
import dev.stagecraft.chaos.source.RunAssembly;
import dev.stagecraft.chaos.source.StateHistoryAssembly;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Reads the services' real schemas (their own Flyway migrations, applied to an embedded PostgreSQL)
 * after a made-up soak in which a run stalled: its successor was granted the lock before the
 * stalled run's lease expired, the stalled run's state write carries the token it opened with
 * although the successor opened since (written through the state service's own {@code
 * state.advance_fencing}), and the successor run is still applying.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SoakDatabaseTest {
  private Path dir;
  private EmbeddedPostgresServer postgres;
  private Connection c;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory(Path.of("target"), "soak-db");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    migrate("lock", "../lock-service");
    migrate("planner", "../planner-service");
    migrate("state", "../state-service");
    c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
  }

  private void migrate(String schema, String module) {
    Flyway.configure()
        .dataSource(postgres.jdbcUrl(), postgres.user(), postgres.password())
        .schemas(schema)
        .locations("filesystem:" + module + "/src/main/resources/db/migration")
        .load()
        .migrate();
  }

  @AfterAll
  void stop() throws Exception {
    if (c != null) {
      c.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (dir != null) {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void findsAZombieRunsOverlapStaleWriteAndTheStuckRunInTheRecordedTables() throws Exception {
    lockEvent("acquired", "l-1", "r-1", 1L, t(0));
    lockEvent("enqueued", null, "r-2", null, t(1));
    lockEvent(
        "acquired", "l-2", "r-2", 2L, t(40)); // granted before the stalled holder's lease ran out
    lockEvent("expired", "l-1", "r-1", 1L, t(45));

    run("r-1", "errored", t(0), List.of("pending", "planning", "applying", "errored"), t(46));
    run("r-2", "applying", t(1), List.of("pending", "queued", "planning", "applying"), t(41));

    stateEvent(1, "lineage_assigned", null, "{\"lineage\":\"lin-1\"}", null, t(0));
    advanceFencing(1, "r-1", t(1));
    advanceFencing(2, "r-2", t(40));
    stateEvent(4, "instance_created", "r-1", "{}", 1L, t(44));

    var locks = LockAuditTrail.of(SoakDatabase.lockAudit(c));
    History history =
        History.builder(t(200))
            .runs(RunAssembly.runs(SoakDatabase.runs(c), locks))
            .locks(locks.tenures())
            .states(StateHistoryAssembly.entries(SoakDatabase.stateEvents(c)))
            .build();

    List<Violation> found = ChaosChecker.all(Duration.ofSeconds(60)).check(history);

    assertThat(locks.problems()).isEmpty();
    assertThat(found)
        .extracting(Violation::kind, Violation::what)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ViolationKind.RUN_NOT_ENDED,
                "run r-2 is still \"applying\" at 2026-12-05T10:03:20Z, after its deadline"
                    + " 2026-12-05T10:01:46Z (the run queued ahead of it ended at"
                    + " 2026-12-05T10:00:46Z, bound 60.000"
                    + " s)"),
            org.assertj.core.groups.Tuple.tuple(
                ViolationKind.STATE_WRITE_STALE_TOKEN,
                "state history of acme/web: the write at sequence 4 by run r-1 used fencing token 1"
                    + " after token 2 was seen at sequence 3"),
            org.assertj.core.groups.Tuple.tuple(
                ViolationKind.TWO_LOCK_HOLDERS,
                "lock of acme/web: r-2 (token 2) was granted at 2026-12-05T10:00:40Z while r-1"
                    + " (token 1) held it until 2026-12-05T10:00:45Z"));
  }

  @Test
  void readsTheActionsWhoseInstanceWasWrittenTainted() throws Exception {
    stateEvent(
        "ops",
        1,
        "instance_tainted",
        "r-7",
        "r-7/null_resource.a",
        "{\"tainted\": true}",
        1L,
        t(1));
    stateEvent(
        "ops",
        2,
        "instance_created",
        "r-7",
        "r-7/null_resource.b",
        "{\"tainted\": false}",
        2L,
        t(2));
    stateEvent("ops", 3, "instance_created", "r-8", null, "{\"tainted\": true}", 3L, t(3));

    assertThat(SoakDatabase.taintedActions(c))
        .containsExactly(new ActionKey("r-7", "r-7/null_resource.a"));
  }

  @Test
  void namesTheLockOutboxEventsTheBrokerTookAsTheLockServicePublishesThem() throws Exception {
    long expired = outboxRow("expired", t(5));
    long forced = outboxRow("force_released", t(6));
    outboxRow("expired", null); // not yet published: nothing was committed upstream

    assertThat(SoakDatabase.lockOutboxCommitted(c))
        .containsExactly(
            new EventSighting(
                "stagecraft.lock-events",
                "lock-lease-expired-" + expired,
                EventSighting.Side.UPSTREAM,
                t(5)),
            new EventSighting(
                "stagecraft.lock-events",
                "lock-force-unlocked-" + forced,
                EventSighting.Side.UPSTREAM,
                t(6)));
  }

  /** A grant of a fresh lock and its end; the end's audit row id (the tests share the tables). */
  private long outboxRow(String type, Instant publishedAt) throws SQLException {
    String lockId = "l-" + java.util.UUID.randomUUID();
    long id = 0;
    for (String row : List.of("acquired", type)) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO lock.lock_events (tenant, workspace, type, lock_id, holder,"
                  + " fencing_token, at, published_at) VALUES ('outbox', ?, ?, ?, 'h', 9, ?, ?)"
                  + " RETURNING id")) {
        ps.setString(1, lockId);
        ps.setString(2, row);
        ps.setString(3, lockId);
        ps.setTimestamp(4, Timestamp.from(t(row.equals("acquired") ? 0 : 1)));
        ps.setTimestamp(
            5, publishedAt == null || row.equals("acquired") ? null : Timestamp.from(publishedAt));
        try (var rs = ps.executeQuery()) {
          rs.next();
          id = rs.getLong(1);
        }
      }
    }
    return id;
  }

  private void lockEvent(String type, String lockId, String holder, Long token, Instant at)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO lock.lock_events (tenant, workspace, type, lock_id, holder,"
                + " fencing_token, at) VALUES ('acme', 'web', ?, ?, ?, ?, ?)")) {
      ps.setString(1, type);
      ps.setString(2, lockId);
      ps.setString(3, holder);
      ps.setObject(4, token);
      ps.setTimestamp(5, Timestamp.from(at));
      ps.executeUpdate();
    }
  }

  private void run(String id, String status, Instant created, List<String> path, Instant last)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO planner.runs (tenant, id, workspace, status, created_at, updated_at,"
                + " instance_id, last_sequence) VALUES ('acme', ?, 'web', ?, ?, ?, 'p-1', ?)")) {
      ps.setString(1, id);
      ps.setString(2, status);
      ps.setTimestamp(3, Timestamp.from(created));
      ps.setTimestamp(4, Timestamp.from(last));
      ps.setLong(5, path.size());
      ps.executeUpdate();
    }
    for (int i = 0; i < path.size(); i++) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO planner.run_transitions (tenant, run_id, sequence, status, at)"
                  + " VALUES ('acme', ?, ?, ?, ?)")) {
        ps.setString(1, id);
        ps.setLong(2, i + 1);
        ps.setString(3, path.get(i));
        ps.setTimestamp(4, Timestamp.from(i == path.size() - 1 ? last : created));
        ps.executeUpdate();
      }
    }
  }

  private void stateEvent(
      long seq, String type, String runId, String payload, Long serial, Instant at)
      throws SQLException {
    stateEvent("web", seq, type, runId, null, payload, serial, at);
  }

  private void stateEvent(
      String workspace,
      long seq,
      String type,
      String runId,
      String actionId,
      String payload,
      Long serial,
      Instant at)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
                + " action_id, type, payload, created_at)"
                + " VALUES ('acme', ?, ?, ?, ?, ?, ?, ?::jsonb, ?)")) {
      ps.setString(1, workspace);
      ps.setLong(2, seq);
      ps.setString(3, workspace + "-ev-" + seq);
      ps.setString(4, runId);
      ps.setString(5, actionId);
      ps.setString(6, type);
      ps.setString(7, payload);
      ps.setTimestamp(8, Timestamp.from(at));
      ps.executeUpdate();
    }
    if (serial != null) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id,"
                  + " digest, created_at) VALUES ('acme', ?, ?, ?, ?, ?, 'sha', ?)")) {
        ps.setString(1, workspace);
        ps.setLong(2, seq);
        ps.setLong(3, serial);
        ps.setString(4, type);
        ps.setString(5, runId);
        ps.setTimestamp(6, Timestamp.from(at));
        ps.executeUpdate();
      }
    }
  }

  /** What opening a run does in the state service: its own function writes the history row. */
  private void advanceFencing(long token, String runId, Instant at) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT advanced FROM state.advance_fencing('acme', 'web', ?, ?, 'planner', ?)")) {
      ps.setLong(1, token);
      ps.setString(2, runId);
      ps.setTimestamp(3, Timestamp.from(at));
      try (var rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getBoolean(1)).isTrue();
      }
    }
  }
}
