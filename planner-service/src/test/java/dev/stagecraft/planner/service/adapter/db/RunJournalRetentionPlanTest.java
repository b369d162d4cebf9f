package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The retention's query on a populated {@code planner.runs} in a real PostgreSQL (V1_9,
 * docs/adr/0039): it finds the old ended runs through the {@code runs_ended} index instead of
 * reading every run, and it deletes exactly their journals.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunJournalRetentionPlanTest {
  static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
  static final int RUNS = 20_000;
  static final int OLD_ENDED = 40;
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void populate() throws Exception {
    database = PlannerTestDatabase.start("planner-retention-plan-");
    dataSource = database.dataSource();
    try (Connection c = dataSource.getConnection();
        PreparedStatement runs =
            c.prepareStatement(
                "INSERT INTO planner.runs (tenant, id, workspace, status, created_at, updated_at,"
                    + " instance_id, last_sequence)"
                    + " SELECT 'acme', 'run-' || g, 'ws-' || (g % 50),"
                    // every tenth run is unfinished; the first OLD_ENDED finished ones ended long
                    // ago, and so did every unfinished one (old but kept)
                    + " CASE WHEN g % 10 = 0 THEN 'applying' WHEN g % 7 = 0 THEN 'errored'"
                    + " ELSE 'applied' END,"
                    + " ?::timestamptz - interval '1 hour', CASE WHEN g <= ? OR g % 10 = 0"
                    + " THEN ?::timestamptz ELSE ?::timestamptz END, 'planner-1', 3"
                    + " FROM generate_series(1, ?) g")) {
      Timestamp longAgo = Timestamp.from(NOW.minus(Duration.ofDays(60)));
      runs.setTimestamp(1, longAgo);
      runs.setInt(2, OLD_ENDED + OLD_ENDED / 10); // the tenths among them are unfinished
      runs.setTimestamp(3, longAgo);
      runs.setTimestamp(4, Timestamp.from(NOW.minus(Duration.ofDays(1))));
      runs.setInt(5, RUNS);
      runs.executeUpdate();
      try (Statement s = c.createStatement()) {
        s.executeUpdate(
            "INSERT INTO planner.run_journal (tenant, run_id, sequence, kind, entry, at)"
                + " SELECT r.tenant, r.id, q, 'log', '{}'::jsonb, r.updated_at"
                + " FROM planner.runs r, generate_series(1, 3) q");
        s.execute("ANALYZE planner.runs");
        s.execute("ANALYZE planner.run_journal");
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void theRetentionFindsTheOldEndedRunsThroughTheirIndexAndDeletesExactlyTheirJournals()
      throws Exception {
    Timestamp cutoff = Timestamp.from(NOW.minus(Duration.ofDays(30)));
    List<String> plan = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + RunJournalRetention.DELETE_BATCH)) {
      ps.setTimestamp(1, cutoff);
      ps.setInt(2, RunJournalRetention.BATCH);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.add(rs.getString(1));
        }
      }
    }
    assertThat(String.join("\n", plan))
        .as("the plan of the retention's query")
        .contains("runs_ended")
        .doesNotContain("Seq Scan on runs");

    long oldEnded =
        count(
            "SELECT count(*) FROM planner.runs WHERE updated_at < now() - interval '30 days'"
                + " AND status <> 'applying'");
    assertThat(oldEnded).isEqualTo(OLD_ENDED);
    long kept = count("SELECT count(*) FROM planner.run_journal") - 3 * oldEnded;

    RunJournalRetention retention =
        new RunJournalRetention(dataSource, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofDays(30));
    assertThat(retention.purge()).isEqualTo(3 * oldEnded);
    assertThat(count("SELECT count(*) FROM planner.run_journal")).isEqualTo(kept);
    // what is left: no old ended run's journal, every unfinished run's (old ones too)
    assertThat(
            count(
                "SELECT count(*) FROM planner.run_journal j JOIN planner.runs r"
                    + " ON r.tenant = j.tenant AND r.id = j.run_id"
                    + " WHERE r.updated_at < now() - interval '30 days' AND r.status <> 'applying'"))
        .isZero();
    assertThat(
            count(
                "SELECT count(*) FROM planner.run_journal j JOIN planner.runs r"
                    + " ON r.tenant = j.tenant AND r.id = j.run_id WHERE r.status = 'applying'"))
        .isEqualTo(3L * (RUNS / 10));
  }

  private long count(String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
