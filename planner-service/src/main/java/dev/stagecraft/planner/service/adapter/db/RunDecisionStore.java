package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chat-ops decisions taken, in {@code planner.run_decisions} (migration V1_12, docs/adr/0055),
 * by tenant, the event's source and its id. {@link #record} inserts with {@code ON CONFLICT DO
 * NOTHING}: the first record of an event stays. Rows older than {@link #RETENTION} are deleted, at
 * most once an hour per instance, by the call that records. Thread-safe (a connection per call).
 */
public final class RunDecisionStore implements RunTrigger.DecisionRecords {
  /** How long a decision is kept: far longer than any redelivery or retry of its event. */
  public static final Duration RETENTION = Duration.ofDays(30);

  private static final Duration PRUNE_EVERY = Duration.ofHours(1);
  private static final Logger LOG = LoggerFactory.getLogger(RunDecisionStore.class);

  private final DataSource dataSource;
  private final Clock clock;
  private volatile Instant prunedAt = Instant.MIN;

  public RunDecisionStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  @Override
  public Optional<RunTrigger.Decided> find(String tenant, String source, String eventId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            Sql.prepare(
                c,
                "SELECT run_id, decision, status, comment FROM planner.run_decisions"
                    + " WHERE tenant = ? AND source = ? AND event_id = ?",
                tenant,
                source,
                eventId);
        ResultSet r = s.executeQuery()) {
      return r.next()
          ? Optional.of(
              new RunTrigger.Decided(
                  tenant, eventId, r.getString(1), r.getString(2), r.getString(3), r.getString(4)))
          : Optional.empty();
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the decisions taken: " + e.getMessage(), e);
    }
  }

  @Override
  public void record(String source, RunTrigger.Decided d) {
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.run_decisions"
              + " (tenant, source, event_id, run_id, decision, status, comment, decided_at)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
              + " ON CONFLICT (tenant, source, event_id) DO NOTHING",
          d.tenant(),
          source,
          d.eventId(),
          d.runId(),
          d.decision(),
          d.status(),
          d.comment(),
          now);
      if (prunedAt.plus(PRUNE_EVERY).isBefore(now)) {
        prunedAt = now;
        Sql.update(
            c, "DELETE FROM planner.run_decisions WHERE decided_at < ?", now.minus(RETENTION));
      }
    } catch (SQLException e) {
      // the decision stands and this instance remembers it; only a copy of the event that comes
      // after a restart, or to another instance, would be refused (as not waiting) instead
      LOG.warn(
          "could not record decision {} on run {} of tenant {}: {}",
          d.eventId(),
          d.runId(),
          d.tenant(),
          e.toString());
    }
  }
}
