package dev.stagecraft.chaos.source.db;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.source.ActionKey;
import dev.stagecraft.chaos.source.LockAuditRow;
import dev.stagecraft.chaos.source.RunRow;
import dev.stagecraft.chaos.source.StateEventRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads what the services recorded in PostgreSQL after a soak: the lock audit trail ({@code
 * lock.lock_events}), the run records ({@code planner.runs}, {@code planner.run_transitions}) and
 * the state histories ({@code state.state_events} with the serials of {@code
 * state.state_versions}). Read-only; each method reads one schema, so the schemas may live in
 * different databases (pass the connection that has it). Run it after the soak stopped: a read
 * while services write may see a history mid-transaction only in the sense of missing its newest
 * rows, never a torn one.
 */
public final class SoakDatabase {
  private SoakDatabase() {}

  public static List<LockAuditRow> lockAudit(Connection c) throws SQLException {
    String sql =
        "SELECT id, tenant, workspace, type, lock_id, holder, fencing_token, actor, at"
            + " FROM lock.lock_events ORDER BY id";
    List<LockAuditRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long token = rs.getLong("fencing_token");
        rows.add(
            new LockAuditRow(
                rs.getLong("id"),
                rs.getString("tenant"),
                rs.getString("workspace"),
                rs.getString("type"),
                rs.getString("lock_id"),
                rs.getString("holder"),
                rs.wasNull() ? null : token,
                rs.getString("actor"),
                instant(rs, "at")));
      }
    }
    return rows;
  }

  public static List<RunRow> runs(Connection c) throws SQLException {
    Map<String, List<RunRow.Transition>> transitions = new HashMap<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT run_id, sequence, status, at FROM planner.run_transitions"
                    + " ORDER BY run_id, sequence");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        transitions
            .computeIfAbsent(rs.getString("run_id"), k -> new ArrayList<>())
            .add(
                new RunRow.Transition(
                    rs.getLong("sequence"), rs.getString("status"), instant(rs, "at")));
      }
    }
    List<RunRow> runs = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT id, tenant, workspace, status, created_at, updated_at FROM planner.runs"
                    + " ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String id = rs.getString("id");
        runs.add(
            new RunRow(
                id,
                rs.getString("tenant"),
                rs.getString("workspace"),
                rs.getString("status"),
                instant(rs, "created_at"),
                instant(rs, "updated_at"),
                transitions.getOrDefault(id, List.of())));
      }
    }
    return runs;
  }

  /**
   * The state histories. A row's lineage is read from {@code lineage_assigned} ({@code lineage})
   * and from pushes and rollbacks (the embedded {@code document}'s or the {@code stored}
   * document's); its token from {@code fencing_advanced} ({@code fencingToken}).
   */
  public static List<StateEventRow> stateEvents(Connection c) throws SQLException {
    String sql =
        "SELECT e.tenant, e.workspace, e.sequence, e.type, e.run_id,"
            + " CASE WHEN e.type = 'lineage_assigned' THEN e.payload->>'lineage'"
            + "      WHEN e.type IN ('state_pushed', 'state_rolled_back')"
            + "        THEN coalesce(e.payload->'document'->>'lineage',"
            + "                      e.payload->'stored'->>'lineage') END AS lineage,"
            + " CASE WHEN e.type = 'fencing_advanced'"
            + "   THEN (e.payload->>'fencingToken')::bigint END AS fencing_token,"
            + " v.serial, e.created_at"
            + " FROM state.state_events e LEFT JOIN state.state_versions v"
            + "   ON v.tenant = e.tenant AND v.workspace = e.workspace AND v.sequence = e.sequence"
            + " ORDER BY e.tenant, e.workspace, e.sequence";
    List<StateEventRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long token = rs.getLong("fencing_token");
        Long fencingToken = rs.wasNull() ? null : token;
        long serial = rs.getLong("serial");
        Long version = rs.wasNull() ? null : serial;
        rows.add(
            new StateEventRow(
                rs.getString("tenant"),
                rs.getString("workspace"),
                rs.getLong("sequence"),
                rs.getString("type"),
                rs.getString("run_id"),
                rs.getString("lineage"),
                fencingToken,
                version,
                instant(rs, "created_at")));
      }
    }
    return rows;
  }

  /** The topic the lock service's outbox publishes to. */
  public static final String LOCK_EVENTS_TOPIC = "stagecraft.lock-events";

  /**
   * The lock service's outbox events the broker took: an {@code expired} or {@code force_released}
   * audit row with {@code published_at} set was published, acknowledged, as {@code
   * lock-lease-expired-<id>} or {@code lock-force-unlocked-<id>} on {@value #LOCK_EVENTS_TOPIC}
   * (the lock service's {@code LeaseExpirySweeper}), so each must be on the topic.
   */
  public static List<EventSighting> lockOutboxCommitted(Connection c) throws SQLException {
    String sql =
        "SELECT id, type, published_at FROM lock.lock_events"
            + " WHERE type IN ('expired', 'force_released') AND published_at IS NOT NULL"
            + " ORDER BY id";
    List<EventSighting> committed = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String prefix =
            "expired".equals(rs.getString("type")) ? "lock-lease-expired-" : "lock-force-unlocked-";
        committed.add(
            new EventSighting(
                LOCK_EVENTS_TOPIC,
                prefix + rs.getLong("id"),
                EventSighting.Side.UPSTREAM,
                instant(rs, "published_at")));
      }
    }
    return committed;
  }

  /**
   * The actions whose result the state service wrote as a tainted instance (an {@code instance_*}
   * row of the action with {@code "tainted": true}).
   */
  public static Set<ActionKey> taintedActions(Connection c) throws SQLException {
    String sql =
        "SELECT DISTINCT run_id, action_id FROM state.state_events"
            + " WHERE action_id IS NOT NULL AND type LIKE 'instance\\_%'"
            + " AND (payload->>'tainted')::boolean";
    Set<ActionKey> tainted = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        tainted.add(new ActionKey(rs.getString("run_id"), rs.getString("action_id")));
      }
    }
    return tainted;
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
