package dev.stagecraft.state.adapter.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;

/**
 * The common case of the state append as one bare insert (ADR 0027, ADR 0052), with {@code
 * state.append_events} (V7, V14) as the fallback that answers every other case.
 *
 * <p>The fast statement inserts the event at {@code expected head + 1}, in autocommit (one round
 * trip, one commit), {@code ON CONFLICT DO NOTHING}. It is tried only when the caller knows the
 * newest fencing token at that head ({@code newestAtHead}: read in one snapshot with the head, or
 * answered by its own previous append) and its own token is that one. It reads nothing else:
 *
 * <ul>
 *   <li><b>fencing</b>: every advance of a workspace's newest token commits together with an event
 *       of that workspace (V14: {@code fencing_advanced} when the advance writes nothing else). A
 *       takeover after the head the caller knows therefore holds {@code expected head + 1} or an
 *       earlier sequence after it; either way {@code expected head + 1} is taken, by the takeover's
 *       event or by one before it, and the insert writes nothing. A takeover still in flight holds
 *       that sequence or will claim a later one: the insert waits for it, or the takeover's event
 *       lands after this one, which orders this write before the takeover, as under a row lock;
 *   <li><b>gapless sequence</b>: the expected head is one the store gave (events are never deleted,
 *       so the event at it exists); the primary key refuses a second writer of the same sequence
 *       (it waits for the first to end);
 *   <li><b>idempotency</b>: the unique event id (per tenant) and, for {@code ActionResults.record},
 *       the outcome row's keys (envelope id; run and action) refuse a second write.
 * </ul>
 *
 * <p>When the insert writes nothing (a sequence another writer took, or an event id already there),
 * it raises nothing: no aborted statement, no {@code ERROR} line in the server's log. In {@link
 * #RECORD_ONE} the version and outcome rows are fed by the inserted event, so they are not written
 * either. Only an outcome key taken while the event itself is new (another envelope of the same
 * action already recorded, or an envelope first recorded without an event, e.g. {@code rejected})
 * still raises a unique violation (SQLSTATE 23505), which aborts the whole statement: the outcome
 * must not be skipped while its event is written. In every case the caller then makes the same
 * append through {@code state.append_events}, which decides under the workspace's row lock and says
 * why: {@code duplicate}, {@code moved}, {@code stale}, or appends itself (first append of a
 * workspace, whose fencing row it creates; a newer token, which it makes the newest). The statement
 * relies on autocommit: in an open transaction a unique violation would abort the caller's
 * transaction, so there the fallback is used directly.
 *
 * <p>Stateless; the methods run on the caller's connection.
 */
public final class EventAppend {
  private EventAppend() {}

  /**
   * What {@code state.append_events} (V7, V14) answered, or the bare insert when it appended: one
   * of four, read from the function's row by {@link #read} — the one place its {@code status} text
   * is interpreted. Callers switch on the type.
   */
  public sealed interface Answer {
    /** Appended: {@code head} is the new head, {@code newest} the newest fencing token at it. */
    record Appended(long head, long newest) implements Answer {}

    /**
     * Recorded before (a redelivery): {@code sequence} is the event's when its id was taken (0 when
     * an outcome of the same result was: then {@code previous} is its {@code state.recorded} JSON,
     * else null); {@code newest} the newest fencing token.
     */
    record Duplicate(long sequence, long newest, String previous) implements Answer {}

    /** The fencing token is older than {@code newest}, the workspace's newest: nothing written. */
    record Stale(long newest) implements Answer {}

    /**
     * Another writer appended since the expected head: {@code head} is the current one, {@code
     * newest} the newest token; nothing written.
     */
    record Moved(long head, long newest) implements Answer {}

    /**
     * The answer in the current row of {@code SELECT status, head, newest, previous FROM
     * state.append_events(...)}.
     *
     * @throws IllegalStateException a status the function does not give (a bug)
     */
    static Answer read(ResultSet rs) throws SQLException {
      String status = rs.getString(1);
      long head = rs.getLong(2);
      long newest = rs.getLong(3);
      return switch (status) {
        case "appended" -> new Appended(head, newest);
        case "duplicate" -> new Duplicate(head, newest, rs.getString(4));
        case "stale" -> new Stale(newest);
        case "moved" -> new Moved(head, newest);
        default -> throw new IllegalStateException("state.append_events answered " + status);
      };
    }
  }

  /** No newest fencing token known at the expected head: the fast statement is not tried. */
  public static final long UNKNOWN_TOKEN = Long.MIN_VALUE;

  /**
   * One event right after the expected head, no version row or outcome: parameters tenant,
   * workspace, expected head, event id, run, action, actor, type, address, payload (JSON text),
   * time. Inserts one row (at expected head + 1) or none; nothing is sent back. A conflict on any
   * unique constraint of the events (sequence, event id) inserts nothing and raises nothing.
   */
  static final String ONE_EVENT =
      "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id,"
          + " actor, type, address, payload, created_at)"
          + " VALUES (?, ?, ?::bigint + 1, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)"
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
   * (the event-store part of {@code ActionResults.record}), without a version row or outcome. One
   * round trip in the common case (see the class comment), two when the fallback has to answer.
   *
   * @param expectedHead a head the store gave: read from it, or a previous answer's
   * @param newestAtHead the workspace's newest fencing token at {@code expectedHead}, read in one
   *     snapshot with it or a previous answer's {@code newest}; {@link #UNKNOWN_TOKEN} when not
   *     known (the function decides)
   * @return {@link Answer.Appended} with the new head; else what {@code state.append_events}
   *     answered ({@link Answer.Duplicate} with the event's sequence, {@link Answer.Moved} with the
   *     current head, {@link Answer.Stale} with the newest token)
   */
  public static Answer appendOne(
      Connection c,
      String tenant,
      String workspace,
      long expectedHead,
      long newestAtHead,
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
    if (c.getAutoCommit() && fencingToken == newestAtHead) {
      try (PreparedStatement ps = c.prepareStatement(ONE_EVENT)) {
        bindOneEvent(
            ps,
            0,
            tenant,
            workspace,
            expectedHead,
            eventId,
            runId,
            actionId,
            actor,
            type,
            address,
            payloadJson,
            time);
        if (ps.executeUpdate() == 1) {
          return new Answer.Appended(expectedHead + 1, fencingToken);
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
        return Answer.read(rs);
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
