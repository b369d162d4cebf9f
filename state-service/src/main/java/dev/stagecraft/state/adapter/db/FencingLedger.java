package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/**
 * The one place that advances a workspace's fencing token (ADR 0068). The invariant it keeps: every
 * advance of {@code state.fencing.newest_token} commits together with an event of the workspace
 * (V14, ADR 0052: {@code fencing_advanced} when the advance writes nothing else), so an appender
 * that knows the head knows the newest token at it ({@link EventAppend}). The row is also the
 * workspace's write lock ({@link #lock}, {@link #lockForPush}).
 *
 * <p>In Java, only this class holds SQL that writes {@code state.fencing}: the run opening's
 * statement ({@link #open}), the locks that create the row, the locked advance ({@link #advance}),
 * the advance that rides on a push's event ({@link #ADVANCE_WITH_EVENT}) and the call of {@code
 * state.advance_fencing} ({@link #advanceFencing}). The plpgsql functions that advance the token,
 * each in its own repeatable migration, are:
 *
 * <ul>
 *   <li>{@code state.advance_fencing} ({@code R__advance_fencing.sql}): the advance alone, with its
 *       {@code fencing_advanced} event;
 *   <li>{@code state.append_events} ({@code R__append_events.sql}): a recorded action's append,
 *       which makes a newer token the newest with its events;
 *   <li>{@code state.push_streamed} ({@code R__push_streamed.sql}): a streamed push in one call,
 *       likewise.
 * </ul>
 *
 * <p>{@code FencingLedgerTest} fails when any other main class of the service, or any other
 * repeatable migration, writes the fencing row. Stateless; the methods run on the caller's
 * connection.
 */
final class FencingLedger {
  private FencingLedger() {}

  /** What the run opening's statement answered (see {@link #OPEN_RUN}). */
  record Opening(Long newest, long appended, long head, long issued) {}

  /**
   * Runs the run opening's statement once: advances to {@code token} with its event and stores the
   * run's credential when the token is the newest (see {@link #OPEN_RUN}).
   */
  static Opening open(
      Connection c,
      String tenant,
      String workspace,
      long token,
      String runId,
      String credentialHash,
      Timestamp now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(OPEN_RUN)) {
      int p = 0;
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setString(++p, workspace);
      ps.setLong(++p, token);
      ps.setString(++p, runId);
      ps.setLong(++p, token);
      ps.setTimestamp(++p, now);
      ps.setLong(++p, token);
      ps.setLong(++p, token);
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setString(++p, runId);
      ps.setLong(++p, token);
      ps.setTimestamp(++p, now);
      ps.setLong(++p, token);
      ps.setString(++p, credentialHash);
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setString(++p, runId);
      ps.setLong(++p, token);
      ps.setTimestamp(++p, now);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        // appended 0: no event appended
        return new Opening((Long) rs.getObject(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
      }
    }
  }

  /** Creates the workspace's fencing row (token 0) unless it exists: its first opening. */
  static void createRow(Connection c, String tenant, String workspace) throws SQLException {
    Sql.update(
        c,
        "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
            + " ON CONFLICT (tenant, workspace) DO NOTHING",
        tenant,
        workspace);
  }

  /** The newest fencing token seen for the workspace (0 when none), read without a lock. */
  static long newest(Connection c, String tenant, String workspace) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /**
   * What {@link #lockForStreamedPush} found: the newest token, the head sequence, and whether the
   * workspace stores the pushed bytes already.
   */
  record PushLock(long newest, long head, boolean stored) {}

  /**
   * {@link #lockForPush}, the head and whether the workspace stores a document of {@code digest},
   * as two statements in one round trip: the driver sends both before it waits; the second runs
   * (and takes its snapshot) only once the first holds the workspace's row lock, so it sees every
   * event and document committed before.
   */
  static PushLock lockForStreamedPush(Connection c, String tenant, String workspace, String digest)
      throws SQLException {
    try (PreparedStatement ps =
        Sql.prepare(
            c,
            LOCK_FOR_PUSH
                + ";"
                + " SELECT (SELECT coalesce(max(sequence), 0) FROM state.state_events"
                + " WHERE tenant = ? AND workspace = ?),"
                + " EXISTS (SELECT 1 FROM state.state_documents"
                + " WHERE tenant = ? AND workspace = ? AND digest = ?)",
            tenant,
            workspace,
            tenant,
            workspace,
            tenant,
            workspace,
            digest)) {
      ps.execute();
      long newest;
      try (ResultSet rs = ps.getResultSet()) {
        rs.next();
        newest = rs.getLong(1);
      }
      if (!ps.getMoreResults()) {
        throw new SQLException("the head sequence was not returned");
      }
      try (ResultSet rs = ps.getResultSet()) {
        rs.next();
        return new PushLock(newest, rs.getLong(1), rs.getBoolean(2));
      }
    }
  }

  /**
   * A common table expression for a statement whose first expression, {@code event}, inserts an
   * event (and returns a row when it did): the workspace's newest token advanced to the bound token
   * unless it is newer already, only when that event was written. Four parameters, bound by {@link
   * #bindAdvanceWithEvent}; ends with a comma.
   */
  static final String ADVANCE_WITH_EVENT =
      " fencing AS (UPDATE state.fencing SET newest_token = ? WHERE tenant = ?"
          + " AND workspace = ? AND newest_token < ? AND EXISTS (SELECT FROM event)),";

  /** Binds {@link #ADVANCE_WITH_EVENT}'s parameters after position {@code i}; the last position. */
  static int bindAdvanceWithEvent(
      PreparedStatement ps, int i, long advanceTo, String tenant, String workspace)
      throws SQLException {
    ps.setLong(++i, advanceTo);
    ps.setString(++i, tenant);
    ps.setString(++i, workspace);
    ps.setLong(++i, advanceTo);
    return i;
  }

  /**
   * The run opening's one statement (ADR 0047, ADR 0052), in autocommit: the workspace's fencing
   * row taken {@code FOR UPDATE} (its newest committed token); when the run's token is newer, its
   * {@code fencing_advanced} event at the head + 1 ({@code ON CONFLICT DO NOTHING}) and, only when
   * that event was written, the token made the newest; the run's credential when the token is the
   * newest (already, or by this event) — one more next to those the run holds, never replacing one
   * (V15) — refused for a run whose credentials were revoked (checked under the run's row lock, so
   * a revocation that commits meanwhile is seen). Answers the newest token before (null: no fencing
   * row yet), the event's sequence (null: none), the head the statement saw and whether the
   * credential was stored. The head is read with the statement's snapshot, which may predate a
   * write that committed while the row lock was awaited or a fast append: then the event's sequence
   * is taken, nothing is written, and the caller runs it again.
   */
  private static final String OPEN_RUN =
      "WITH cur AS (SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?"
          + " FOR UPDATE),"
          + " h AS (SELECT coalesce(max(sequence), 0) AS head FROM state.state_events"
          + " WHERE tenant = ? AND workspace = ?),"
          + " ev AS (INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
          + " action_id, actor, type, address, payload, created_at)"
          + " SELECT ?, ?, h.head + 1, 'fencing:' || ? || ':' || ?::bigint, ?, NULL, NULL,"
          + " 'fencing_advanced', NULL, jsonb_build_object('fencingToken', ?::bigint), ?"
          + " FROM h, cur WHERE cur.newest_token < ?::bigint"
          + " ON CONFLICT DO NOTHING RETURNING sequence),"
          + " upd AS (UPDATE state.fencing SET newest_token = ? WHERE tenant = ? AND workspace = ?"
          + " AND EXISTS (SELECT FROM ev) RETURNING 1),"
          + " cr AS (INSERT INTO state.run_credentials (tenant, workspace, run_id,"
          + " fencing_token, created_at)"
          + " SELECT ?, ?, ?, ?, ? FROM cur WHERE cur.newest_token = ?::bigint"
          + " OR EXISTS (SELECT FROM ev)"
          + " ON CONFLICT (tenant, workspace, run_id) DO UPDATE SET"
          + " fencing_token = excluded.fencing_token"
          + " WHERE state.run_credentials.revoked_at IS NULL RETURNING 1),"
          + " ch AS (INSERT INTO state.run_credential_hashes (credential_hash, tenant, workspace,"
          + " run_id, fencing_token, created_at) SELECT ?, ?, ?, ?, ?, ? FROM cr RETURNING 1)"
          + " SELECT (SELECT newest_token FROM cur), (SELECT sequence FROM ev),"
          + " (SELECT head FROM h), (SELECT count(*) FROM ch), (SELECT count(*) FROM upd)";

  /**
   * {@link #lock} in one round trip, for a push: creates the workspace's fencing row when missing
   * and locks it (a no-op update takes the row lock as {@code FOR UPDATE} does, waiting for a
   * concurrent writer), returning the newest token.
   */
  static long lockForPush(Connection c, String tenant, String workspace) throws SQLException {
    return Sql.queryLong(c, LOCK_FOR_PUSH, tenant, workspace);
  }

  private static final String LOCK_FOR_PUSH =
      "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
          + " ON CONFLICT (tenant, workspace)"
          + " DO UPDATE SET newest_token = state.fencing.newest_token"
          + " RETURNING newest_token";

  /** A workspace's head (its newest event's sequence) and the newest fencing token at it. */
  record HeadAndNewest(long head, long newest) {}

  /**
   * What {@code state.advance_fencing} answered: whether the token became the newest, the newest
   * after the call, and the head at which it is the newest (when advanced).
   */
  record Advance(boolean advanced, long newest, long head) {}

  /**
   * The sequence of the workspace's newest event and its newest fencing token (0 and 0 when it has
   * none), read in one snapshot: the token is the newest at that head (ADR 0052).
   */
  static HeadAndNewest headAndNewestToken(Connection c, String tenant, String workspace)
      throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT (SELECT coalesce(max(sequence), 0) FROM state.state_events"
                    + " WHERE tenant = ? AND workspace = ?),"
                    + " (SELECT coalesce(max(newest_token), 0) FROM state.fencing"
                    + " WHERE tenant = ? AND workspace = ?)",
                tenant,
                workspace,
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new HeadAndNewest(rs.getLong(1), rs.getLong(2));
    }
  }

  /**
   * Advances the workspace's newest fencing token to {@code token} with {@code
   * state.advance_fencing} (V14): never backwards, and an advance appends its {@code
   * fencing_advanced} event.
   *
   * @return whether it advanced, the newest token after the call, the head at which {@code token}
   *     is the newest (when advanced)
   */
  static Advance advanceFencing(
      Connection c, String tenant, String workspace, long token, String runId, Instant now)
      throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT advanced, newest, head FROM state.advance_fencing(?, ?, ?, ?, NULL, ?)",
                tenant,
                workspace,
                token,
                runId,
                now);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new Advance(rs.getBoolean(1), rs.getLong(2), rs.getLong(3));
    }
  }

  /**
   * Locks the workspace for a write (its fencing row {@code FOR UPDATE}, created when missing) and
   * returns the newest token; held until the caller's transaction ends.
   */
  static long lock(Connection c, String tenant, String workspace) throws SQLException {
    Sql.update(
        c,
        "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
            + " ON CONFLICT (tenant, workspace) DO NOTHING",
        tenant,
        workspace);
    return Sql.queryLong(
        c,
        "SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?" + " FOR UPDATE",
        tenant,
        workspace);
  }

  /** Makes {@code token} the workspace's newest; the caller holds the row from {@link #lock}. */
  static void advance(Connection c, String tenant, String workspace, long token)
      throws SQLException {
    Sql.update(
        c,
        "UPDATE state.fencing SET newest_token = ? WHERE tenant = ? AND workspace = ?",
        token,
        tenant,
        workspace);
  }
}
