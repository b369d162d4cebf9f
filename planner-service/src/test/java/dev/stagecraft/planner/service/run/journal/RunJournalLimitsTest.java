package dev.stagecraft.planner.service.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunJournalRetention;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.run.RunStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 * The run journal's limits as settings, against a real PostgreSQL: the output cap ({@code
 * STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES}, held by the store and taken by the journals it records)
 * and the retention ({@code STAGECRAFT_PLANNER_RUN_LOG_RETENTION}: journals of runs that ended
 * longer ago are deleted in batches; never a run that has not ended; the run rows and their
 * transitions stay).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunJournalLimitsTest {
  static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
  final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-journal-limits-");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void aRecordedJournalKeepsTheStoresNumberOfOutputLinesInMemoryAndInTheTable() throws Exception {
    RunJournalStore store = new RunJournalStore(dataSource, 4, "planner-1");
    RecordingLane lane = new RecordingLane("run-cap");
    RunJournal journal = new RunJournal(clock); // the default bound until it is recorded
    journal.recordTo(lane, store, "acme", "run-cap");
    journal.status(RunStatus.APPLYING, null);
    for (int i = 1; i <= 20; i++) {
      journal.log("a", "stdout", "line " + i);
    }
    journal.status(RunStatus.APPLIED, null);
    assertThat(lane.awaitSubmitted(Duration.ofSeconds(30))).isTrue();

    List<RunEvent> inMemory = journal.after(0, Duration.ZERO);
    assertThat(inMemory)
        .extracting(RunEvent::kind)
        .containsExactly("status", "log", "log", "log", "log", "action", "status");
    assertThat(inMemory.get(5).message()).contains("beyond 4 lines per run is not kept");
    assertThat(store.after("acme", "run-cap", 0, Long.MAX_VALUE, 100)).isEqualTo(inMemory);
  }

  @Test
  void theOutputCapMustBePositiveAndSaysWhichSettingIsWrong() {
    assertThatThrownBy(() -> new RunJournalStore(dataSource, 0, "planner-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES")
        .hasMessageContaining("got 0");
  }

  @Test
  void retentionIsParsedWithUnitsOrIsoAndUnsetMeansKeepForever() {
    assertThat(RunJournalRetention.parseRetention(null)).isNull();
    assertThat(RunJournalRetention.parseRetention(" ")).isNull();
    assertThat(RunJournalRetention.parseRetention("30d")).isEqualTo(Duration.ofDays(30));
    assertThat(RunJournalRetention.parseRetention("12h")).isEqualTo(Duration.ofHours(12));
    assertThat(RunJournalRetention.parseRetention("90m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(RunJournalRetention.parseRetention("P7D")).isEqualTo(Duration.ofDays(7));
    for (String bad : List.of("30", "-1d", "0d", "soon", "P-1D")) {
      assertThatThrownBy(() -> RunJournalRetention.parseRetention(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("STAGECRAFT_PLANNER_RUN_LOG_RETENTION")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  @Test
  void retentionDeletesOnlyJournalsOfRunsThatEndedLongerAgoInBatches() throws Exception {
    RunJournalStore store = new RunJournalStore(dataSource, "planner-1");
    Instant longAgo = NOW.minus(Duration.ofDays(40));
    int many = 2_345; // more than two batches of 1,000
    run("old-ended", "applied", longAgo);
    record(store, "old-ended", many);
    run("old-errored", "errored", longAgo);
    record(store, "old-errored", 3);
    run("recent-ended", "applied", NOW.minus(Duration.ofDays(2)));
    record(store, "recent-ended", 5);
    run("old-running", "applying", longAgo); // not ended: kept whatever its age
    record(store, "old-running", 7);
    transition("old-ended", longAgo);

    RunJournalRetention retention = new RunJournalRetention(dataSource, clock, Duration.ofDays(30));
    assertThat(retention.purge()).isEqualTo(many + 3);

    assertThat(journalRows("old-ended")).isZero();
    assertThat(journalRows("old-errored")).isZero();
    assertThat(journalRows("recent-ended")).isEqualTo(5);
    assertThat(journalRows("old-running")).isEqualTo(7);
    assertThat(count("SELECT count(*) FROM planner.runs WHERE id = 'old-ended'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM planner.run_transitions WHERE run_id = 'old-ended'"))
        .isEqualTo(1);
    // nothing more to delete; keeping forever deletes nothing
    assertThat(retention.purge()).isZero();
    assertThat(new RunJournalRetention(dataSource, clock, null).purge()).isZero();
    assertThat(journalRows("recent-ended")).isEqualTo(5);
  }

  // --- fixtures -----------------------------------------------------------------------------

  private void run(String id, String status, Instant updatedAt) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO planner.runs (tenant, id, workspace, status, created_at, updated_at,"
                    + " instance_id, last_sequence) VALUES ('acme', ?, 'default', ?, ?, ?,"
                    + " 'planner-1', 1)")) {
      ps.setString(1, id);
      ps.setString(2, status);
      ps.setTimestamp(3, Timestamp.from(updatedAt.minusSeconds(60)));
      ps.setTimestamp(4, Timestamp.from(updatedAt));
      ps.executeUpdate();
    }
  }

  private void transition(String id, Instant at) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO planner.run_transitions (tenant, run_id, sequence, status, message,"
                    + " at) VALUES ('acme', ?, 1, 'applied', NULL, ?)")) {
      ps.setString(1, id);
      ps.setTimestamp(2, Timestamp.from(at));
      ps.executeUpdate();
    }
  }

  private static void record(RunJournalStore store, String runId, int entries) {
    List<RunEvent> batch = new ArrayList<>();
    for (int i = 1; i <= entries; i++) {
      batch.add(new RunEvent(i, NOW, "log", null, "a", "stdout", "line " + i, null));
    }
    store.record("acme", runId, batch);
  }

  private long journalRows(String runId) throws Exception {
    return count("SELECT count(*) FROM planner.run_journal WHERE run_id = '" + runId + "'");
  }

  private long count(String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
