package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.stagecraft.planner.service.run.RunEvent;
import dev.stagecraft.planner.service.run.RunJournal;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Runs' journals as recorded ({@code planner.run_journal}, docs/adr/0032): what {@code GET
 * /runs/{id}/logs} sends, so any planner instance serves a run's log and a restart keeps it.
 *
 * <p>Thread-safe (every call takes its own connection). The coordinator calls {@link #record} on
 * the run's recording lane, in sequence order, one batch per call; a batch is one transaction and
 * an entry already recorded (same tenant, run and sequence) is left as it is, so a batch offered
 * again after a failure or a redelivery changes nothing. Every row carries its tenant and every
 * read is by tenant.
 */
public final class RunJournalStore implements RunJournal.Recorder {
  private final DataSource dataSource;
  private final int maxLogLines;

  /** A store whose runs keep {@link RunJournal#DEFAULT_MAX_LOG_LINES} output lines. */
  public RunJournalStore(DataSource dataSource) {
    this(dataSource, RunJournal.DEFAULT_MAX_LOG_LINES);
  }

  /**
   * @param maxLogLines output lines a run keeps ({@code STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES}); the
   *     journals recorded here take this bound (at least 1)
   */
  public RunJournalStore(DataSource dataSource, int maxLogLines) {
    if (maxLogLines < 1) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES must be at least 1 (output lines kept per run;"
              + " default "
              + RunJournal.DEFAULT_MAX_LOG_LINES
              + "), got "
              + maxLogLines);
    }
    this.dataSource = dataSource;
    this.maxLogLines = maxLogLines;
  }

  @Override
  public int maxLogLines() {
    return maxLogLines;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException when the database refused the batch (nothing of it is written)
   */
  @Override
  public void record(String tenant, String runId, List<RunEvent> entries) {
    if (entries.isEmpty()) {
      return;
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        insert(c, tenant, runId, entries);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not record "
              + entries.size()
              + " journal entries of run "
              + runId
              + " from sequence "
              + entries.getFirst().sequence()
              + ": "
              + e,
          e);
    }
  }

  /**
   * Inserts {@code entries} on {@code c} (the caller's transaction), keeping rows already there,
   * and notifies {@link RunJournalFollowers#CHANNEL} with the run id in the same transaction: the
   * followers of the run on every planner instance are woken when (and only if) it commits.
   */
  static void insert(Connection c, String tenant, String runId, List<RunEvent> entries)
      throws SQLException {
    if (entries.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, RunJournalFollowers.CHANNEL);
      ps.setString(2, runId);
      ps.execute();
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO planner.run_journal (tenant, run_id, sequence, kind, entry, at)"
                + " VALUES (?, ?, ?, ?, ?::jsonb, ?) ON CONFLICT DO NOTHING")) {
      for (RunEvent e : entries) {
        ps.setString(1, tenant);
        ps.setString(2, runId);
        ps.setLong(3, e.sequence());
        ps.setString(4, e.kind());
        try {
          ps.setString(5, EventCodec.mapper().writeValueAsString(e));
        } catch (JsonProcessingException x) {
          throw new SQLException("journal entry " + e.sequence() + " cannot be written as JSON", x);
        }
        ps.setTimestamp(6, Timestamp.from(e.time()));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** The run's highest recorded sequence on {@code c}, 0 when none. */
  static long lastRecorded(Connection c, String tenant, String runId) throws SQLException {
    return Sql.queryLong(
        c,
        "SELECT coalesce(max(sequence), 0) FROM planner.run_journal"
            + " WHERE tenant = ? AND run_id = ?",
        tenant,
        runId);
  }

  @Override
  public long lastRecorded(String tenant, String runId) {
    try (Connection c = dataSource.getConnection()) {
      return lastRecorded(c, tenant, runId);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not read the journal of run " + runId + ": " + e.getMessage(), e);
    }
  }

  /** The tenant's run's last recorded entry (the highest sequence), or null when none is. */
  public RunEvent last(String tenant, String runId) throws SQLException {
    List<RunEvent> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT entry::text FROM planner.run_journal WHERE tenant = ? AND run_id = ?"
                    + " ORDER BY sequence DESC LIMIT 1",
                tenant,
                runId);
        ResultSet rs = ps.executeQuery()) {
      read(runId, rs, out);
    }
    return out.isEmpty() ? null : out.getFirst();
  }

  private static void read(String runId, ResultSet rs, List<RunEvent> out) throws SQLException {
    while (rs.next()) {
      try {
        out.add(EventCodec.mapper().readValue(rs.getString(1), RunEvent.class));
      } catch (JsonProcessingException e) {
        throw new SQLException("a recorded journal entry of run " + runId + " is not valid", e);
      }
    }
  }

  /**
   * The recorded entries of the tenant's run with a sequence in ({@code after}, {@code upTo}], in
   * order, at most {@code limit} of them.
   */
  public List<RunEvent> after(String tenant, String runId, long after, long upTo, int limit)
      throws SQLException {
    List<RunEvent> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT entry::text FROM planner.run_journal WHERE tenant = ? AND run_id = ?"
                    + " AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?",
                tenant,
                runId,
                after,
                upTo,
                limit);
        ResultSet rs = ps.executeQuery()) {
      read(runId, rs, out);
    }
    return out;
  }
}
