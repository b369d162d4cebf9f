package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs' journals as recorded ({@code planner.run_journal}, docs/adr/0032): what {@code GET
 * /runs/{id}/logs} sends, so any planner instance serves a run's log and a restart keeps it.
 *
 * <p>Thread-safe (every call takes its own connection). The coordinator calls {@link #record} on
 * the run's recording lane, in sequence order, one batch per call; a batch is one transaction and
 * an entry already recorded (same tenant, run and sequence) is left as it is, so a batch offered
 * again after a failure or a redelivery changes nothing. Every row carries its tenant and every
 * read is by tenant.
 *
 * <p>Writes are fenced by ownership (docs/adr/0034, 0039): a batch is stored only while the run's
 * row in {@code planner.runs} names this instance (or the run has no row yet); the batch of a run
 * another instance adopted is dropped whole, in the same statement that would insert it (the run
 * row is read {@code FOR SHARE}, so an adoption commits either before the batch — which is then
 * dropped — or after it), and logged once per run. A paused instance that has not noticed its runs
 * were adopted thus adds nothing to their journals.
 */
public final class RunJournalStore implements RunJournal.Recorder {
  private static final Logger LOG = LoggerFactory.getLogger(RunJournalStore.class);

  /**
   * One batch in one statement: the run row is locked {@code FOR SHARE} (an adoption's {@code
   * UPDATE} of it waits for this transaction, or this waits for the adoption and reads the row it
   * committed), the entries go in from arrays unless the row names another instance, and the
   * followers are notified when they did. Parameters: run id, tenant, this instance; tenant, run
   * id, sequences, kinds, entries, times; channel, run id. Answers whether it was fenced (a
   * data-modifying {@code WITH} runs whether or not the answer reads it).
   */
  private static final String INSERT_OWNED =
      "WITH owner AS (SELECT instance_id FROM planner.runs WHERE id = ? AND tenant = ? FOR SHARE),"
          + " fence AS (SELECT EXISTS (SELECT 1 FROM owner WHERE instance_id <> ?) AS fenced),"
          + " stored AS (INSERT INTO planner.run_journal"
          + " (tenant, run_id, sequence, kind, entry, at) SELECT ?, ?, e.sequence, e.kind, e.entry::jsonb, e.at::timestamptz"
          + " FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[])"
          + " AS e(sequence, kind, entry, at)"
          + " WHERE NOT (SELECT fenced FROM fence) ON CONFLICT DO NOTHING)"
          + " SELECT fenced, CASE WHEN fenced THEN NULL ELSE pg_notify(?, ?) END FROM fence";

  private final DataSource dataSource;
  private final int maxLogLines;
  private final String instanceId;

  /** Runs whose batches were dropped because another instance owns them (logged once each). */
  private final Set<String> fencedRuns = ConcurrentHashMap.newKeySet();

  /**
   * A store whose runs keep {@link RunJournal#DEFAULT_MAX_LOG_LINES} output lines.
   *
   * @param instanceId this planner instance ({@code STAGECRAFT_INSTANCE_ID}): batches are stored
   *     only for runs it owns
   */
  public RunJournalStore(DataSource dataSource, String instanceId) {
    this(dataSource, RunJournal.DEFAULT_MAX_LOG_LINES, instanceId);
  }

  /**
   * @param maxLogLines output lines a run keeps ({@code STAGECRAFT_PLANNER_RUN_LOG_MAX_LINES}); the
   *     journals recorded here take this bound (at least 1)
   * @param instanceId this planner instance ({@code STAGECRAFT_INSTANCE_ID}): batches are stored
   *     only for runs it owns
   */
  public RunJournalStore(DataSource dataSource, int maxLogLines, String instanceId) {
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
    this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
  }

  @Override
  public int maxLogLines() {
    return maxLogLines;
  }

  /**
   * {@inheritDoc}
   *
   * <p>When another instance owns the run (it adopted it), the batch is dropped — not stored, not
   * offered again — and that is logged once per run.
   *
   * @throws IllegalStateException when the database refused the batch (nothing of it is written)
   */
  @Override
  public void record(String tenant, String runId, List<RunEvent> entries) {
    if (entries.isEmpty()) {
      return;
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true); // one statement, its own transaction
      if (!insert(c, instanceId, tenant, runId, entries) && fencedRuns.add(tenant + "/" + runId)) {
        LOG.warn(
            "run {} of tenant {} is owned by another planner instance now (adopted, docs/adr/0034):"
                + " its journal entries from this instance {} are not recorded (first dropped"
                + " sequence {}; later batches are dropped without another message)",
            runId,
            tenant,
            instanceId,
            entries.getFirst().sequence());
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
   * Inserts {@code entries} on {@code c} (in the caller's transaction, or as one when it
   * autocommits) in one statement, keeping rows already there, unless the run's row names another
   * instance than {@code instanceId}; and, when it inserts, notifies {@link
   * RunJournalFollowers#CHANNEL} with the run id in the same statement: the followers of the run on
   * every planner instance are woken when (and only if) it commits.
   *
   * @return false when the batch was dropped because another instance owns the run
   */
  static boolean insert(
      Connection c, String instanceId, String tenant, String runId, List<RunEvent> entries)
      throws SQLException {
    if (entries.isEmpty()) {
      return true;
    }
    int n = entries.size();
    Long[] sequences = new Long[n];
    String[] kinds = new String[n];
    String[] json = new String[n];
    String[] times = new String[n];
    for (int i = 0; i < n; i++) {
      RunEvent e = entries.get(i);
      sequences[i] = e.sequence();
      kinds[i] = e.kind();
      try {
        json[i] = EventCodec.mapper().writeValueAsString(e);
      } catch (JsonProcessingException x) {
        throw new SQLException("journal entry " + e.sequence() + " cannot be written as JSON", x);
      }
      times[i] = e.time().toString(); // ISO-8601 in UTC, read exactly as timestamptz
    }
    try (PreparedStatement ps = c.prepareStatement(INSERT_OWNED)) {
      ps.setString(1, runId);
      ps.setString(2, tenant);
      ps.setString(3, instanceId);
      ps.setString(4, tenant);
      ps.setString(5, runId);
      ps.setArray(6, c.createArrayOf("bigint", sequences));
      ps.setArray(7, c.createArrayOf("text", kinds));
      ps.setArray(8, c.createArrayOf("text", json));
      ps.setArray(9, c.createArrayOf("text", times));
      ps.setString(10, RunJournalFollowers.CHANNEL);
      ps.setString(11, runId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return !rs.getBoolean(1);
      }
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
