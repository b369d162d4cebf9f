package dev.stagecraft.state.adapter.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;

/**
 * The common case of the state append as one plain prepared statement (ADR 0027), with {@code
 * state.append_events} (V7) as the fallback that answers every other case.
 *
 * <p>The fast statement appends after the head the caller expects, in autocommit (one round trip,
 * one commit), and writes only when all of these hold at once:
 *
 * <ul>
 *   <li><b>fencing</b>: the workspace's {@code state.fencing} row exists and its newest token
 *       equals the caller's; the row is taken {@code FOR SHARE} until the commit. A newer token can
 *       only be registered by updating that row, and every row update (or {@code FOR UPDATE}, which
 *       the locked writers take first) conflicts with {@code FOR SHARE}; a row lock read also sees
 *       the newest committed token, not the statement's snapshot. So a token cannot be superseded
 *       between this check and this commit: the append is ordered before any newer holder's
 *       takeover, exactly as under the exclusive lock. Appenders with the current token do not wait
 *       for each other on the row; the primary key orders them instead;
 *   <li><b>gapless sequence</b>: the event gets {@code expected head + 1}, and only when the event
 *       at {@code expected head} exists (or the head expected is 0). Events are never deleted and a
 *       writer only ever appends right after an existing event, so sequences stay gapless; the
 *       primary key refuses a second writer of the same sequence (it waits for the first to end);
 *   <li><b>idempotency</b>: the unique event id (per tenant) and, for {@link StateStore#record},
 *       the outcome row's keys (envelope id; run and action) refuse a second write.
 * </ul>
 *
 * <p>When any of them fails nothing is written: a check that does not hold selects no row; the
 * event's insert is {@code ON CONFLICT DO NOTHING} without a conflict target, so a sequence another
 * writer took (a lost race; PostgreSQL waits for that writer to end, as for a unique check) or an
 * event id already there (a redelivery) inserts no row either, without raising: no aborted
 * statement, no {@code ERROR} line in the server's log, no rollback. In {@link #RECORD_ONE} the
 * version and outcome rows are fed by the inserted event, so they are not written either. Only an
 * outcome key taken while the event itself is new (another envelope of the same action already
 * recorded, or an envelope first recorded without an event, e.g. {@code rejected}) still raises a
 * unique violation (SQLSTATE 23505), which aborts the whole statement: the outcome must not be
 * skipped while its event is written. In every case the caller then makes the same append through
 * {@code state.append_events}, which decides under the workspace's row lock and says why: {@code
 * duplicate}, {@code moved}, {@code stale}, or appends itself (first append of a workspace, whose
 * fencing row it creates; a newer token, which it makes the newest). The statement relies on
 * autocommit: in an open transaction a unique violation would abort the caller's transaction, so
 * there the fallback is used directly.
 *
 * <p>Stateless; the methods run on the caller's connection.
 */
public final class EventAppend {
  private EventAppend() {}

  /** What an append answered: as {@code state.append_events} (V7) does. */
  public record Answer(String status, long head, long newest, String previous) {}

  /**
   * One event after the expected head, no version row or outcome: parameters tenant, workspace,
   * expected head, event id, run, action, actor, type, address, payload (JSON text), time, then
   * tenant, workspace, fencing token, expected head, tenant, workspace, expected head. Inserts one
   * row (at expected head + 1) or none; nothing is sent back. The head lookup takes its keys as
   * parameters, not from the fencing row: correlated, PostgreSQL may run it as a hashed subplan
   * over every event of that sequence number in the table. A conflict on any unique constraint of
   * the events (sequence, event id) inserts nothing and raises nothing.
   */
  static final String ONE_EVENT =
      "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id,"
          + " actor, type, address, payload, created_at)"
          + " SELECT ?, ?, ?::bigint + 1, ?, ?, ?, ?, ?, ?, ?::jsonb, ?"
          + " FROM state.fencing f"
          + " WHERE f.tenant = ? AND f.workspace = ? AND f.newest_token = ?"
          + " AND (?::bigint = 0 OR EXISTS (SELECT FROM state.state_events e"
          + " WHERE e.tenant = ? AND e.workspace = ? AND e.sequence = ?::bigint))"
          + " FOR SHARE OF f"
          + " ON CONFLICT DO NOTHING";

  /**
   * {@link #ONE_EVENT}, then the event's version row (when the serial parameter is not null; digest
   * left to the first listing, as V7 does) and the action's outcome row, all in the same statement:
   * parameters as {@link #ONE_EVENT}, then serial, serial, then run id, action id, source envelope
   * id, outcome, outcome serial, recorded envelope (JSON text). Its update count is the outcome
   * rows inserted: 1 when the event was appended, else 0.
   */
  static final String RECORD_ONE =
      "WITH ev AS ("
          + ONE_EVENT
          + " RETURNING tenant, workspace, sequence, type, run_id, actor, created_at),"
          + " ver AS (INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type,"
          + " run_id, actor, digest, created_at)"
          + " SELECT tenant, workspace, sequence, ?::bigint, type, run_id, actor, NULL, created_at"
          + " FROM ev WHERE ?::bigint IS NOT NULL)"
          + " INSERT INTO state.action_outcomes (tenant, workspace, run_id, action_id,"
          + " source_event_id, outcome, serial, recorded_envelope, created_at)"
          + " SELECT tenant, workspace, ?, ?, ?, ?, ?, ?::jsonb, created_at FROM ev";

  /** {@code state.append_events} (V7) with one event and nothing else. */
  private static final String FALLBACK_ONE_EVENT =
      "SELECT status, head, newest, previous FROM state.append_events(?, ?, ?, ?, true,"
          + " ARRAY[?]::text[], ?, ?, ?, ARRAY[?]::text[], ARRAY[?]::text[], ARRAY[?::jsonb],"
          + " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ?)";

  /**
   * Appends one event to a workspace's stream after {@code expectedHead}, with its tenant, checked
   * against {@code fencingToken} and idempotent by {@code eventId}: the store's append primitive
   * (the event-store part of {@link StateStore#record}), without a version row or outcome. One
   * round trip in the common case (see the class comment), two when the fallback has to answer.
   *
   * @return {@code appended} with the new head; else what {@code state.append_events} answered
   *     ({@code duplicate} with the event's sequence, {@code moved} with the current head, {@code
   *     stale} with the newest token)
   */
  public static Answer appendOne(
      Connection c,
      String tenant,
      String workspace,
      long expectedHead,
      long fencingToken,
      String eventId,
      String runId,
      String actionId,
      String actor,
      String type,
      String address,
      String payloadJson,
      Instant now)
      throws SQLException {
    Timestamp time = Timestamp.from(now);
    if (c.getAutoCommit()) {
      try (PreparedStatement ps = c.prepareStatement(ONE_EVENT)) {
        bindOneEvent(
            ps,
            0,
            tenant,
            workspace,
            expectedHead,
            fencingToken,
            eventId,
            runId,
            actionId,
            actor,
            type,
            address,
            payloadJson,
            time);
        if (ps.executeUpdate() == 1) {
          return new Answer("appended", expectedHead + 1, fencingToken, null);
        }
      } catch (SQLException e) {
        if (!isUniqueViolation(e)) {
          throw e;
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(FALLBACK_ONE_EVENT)) {
      int p = 0;
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setLong(++p, expectedHead);
      ps.setLong(++p, fencingToken);
      ps.setString(++p, eventId);
      ps.setString(++p, runId);
      ps.setString(++p, actionId);
      ps.setString(++p, actor);
      ps.setString(++p, type);
      ps.setString(++p, address);
      ps.setString(++p, payloadJson);
      ps.setTimestamp(++p, time);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Answer(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getString(4));
      }
    }
  }

  /** Binds {@link #ONE_EVENT}'s parameters after position {@code p}; returns the last position. */
  static int bindOneEvent(
      PreparedStatement ps,
      int p,
      String tenant,
      String workspace,
      long expectedHead,
      long fencingToken,
      String eventId,
      String runId,
      String actionId,
      String actor,
      String type,
      String address,
      String payloadJson,
      Timestamp time)
      throws SQLException {
    ps.setString(++p, tenant);
    ps.setString(++p, workspace);
    ps.setLong(++p, expectedHead);
    ps.setString(++p, eventId);
    ps.setString(++p, runId);
    ps.setString(++p, actionId);
    ps.setString(++p, actor);
    ps.setString(++p, type);
    ps.setString(++p, address);
    ps.setString(++p, payloadJson);
    ps.setTimestamp(++p, time);
    ps.setString(++p, tenant);
    ps.setString(++p, workspace);
    ps.setLong(++p, fencingToken);
    ps.setLong(++p, expectedHead);
    ps.setString(++p, tenant);
    ps.setString(++p, workspace);
    ps.setLong(++p, expectedHead);
    return p;
  }

  /**
   * The rest of {@link #RECORD_ONE}'s parameters after position {@code p}: the version's serial
   * (null: no version row) and the outcome row.
   */
  static void bindRecordRest(
      PreparedStatement ps,
      int p,
      Long serial,
      String runId,
      String actionId,
      String sourceEventId,
      String outcome,
      long outcomeSerial,
      String envelopeJson)
      throws SQLException {
    for (int i = 0; i < 2; i++) {
      if (serial == null) {
        ps.setNull(++p, Types.BIGINT);
      } else {
        ps.setLong(++p, serial);
      }
    }
    ps.setString(++p, runId);
    ps.setString(++p, actionId);
    ps.setString(++p, sourceEventId);
    ps.setString(++p, outcome);
    ps.setLong(++p, outcomeSerial);
    ps.setString(++p, envelopeJson);
  }

  /**
   * A unique violation: the fast statement wrote nothing and the fallback answers. Since the
   * event's insert is {@code ON CONFLICT DO NOTHING}, only {@link #RECORD_ONE}'s outcome row can
   * still raise it (see the class comment).
   */
  static boolean isUniqueViolation(SQLException e) {
    return "23505".equals(e.getSQLState());
  }
}
