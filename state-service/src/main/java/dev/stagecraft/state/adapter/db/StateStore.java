package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.StateDecider;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.WorkspaceState;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The workspace state history in PostgreSQL (schema {@code state}).
 *
 * <p>Concurrency: every write to a workspace first takes its {@code state.fencing} row with {@code
 * SELECT ... FOR UPDATE}, so writes to one workspace are serialized across threads and service
 * instances by the database; reads take no locks (they see the last committed history).
 *
 * <p>Idempotency: {@link #record} is keyed by the envelope id <em>and</em> by (run id, action id)
 * via {@code state.action_outcomes}; a second delivery appends nothing and returns the very same
 * {@code state.recorded} envelope as the first.
 */
@Singleton
public final class StateStore {
  public static final String SOURCE = "/stagecraft/state-service";
  private static final ObjectMapper JSON = EventCodec.mapper();

  /** A stored event with its metadata, for the history listing. */
  public record StoredEvent(
      long sequence,
      String type,
      String runId,
      String actionId,
      String address,
      String actor,
      Instant time,
      StateEvent event) {}

  /** The envelope to publish, and whether it was recorded before (a redelivery). */
  public record Recorded(EventEnvelope envelope, boolean duplicate) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final StateDecider decider;
  private final EventCodec codec;

  public StateStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.decider = new StateDecider(() -> UUID.randomUUID().toString());
    this.codec = new EventCodec(SOURCE, clock, () -> UUID.randomUUID().toString());
  }

  /**
   * Records an executor's action result in one transaction: lock the workspace, skip when already
   * recorded, fold the history, decide, append, remember the outcome.
   */
  public Recorded record(EventEnvelope source, ActionFinished finished) throws SQLException {
    String tenant = source.tenant();
    String workspace = source.workspace();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        long newest = lockWorkspace(c, tenant, workspace);
        Optional<EventEnvelope> previous = previousOutcome(c, source, finished);
        if (previous.isPresent()) {
          c.commit();
          return new Recorded(previous.get(), true);
        }
        List<StoredEvent> history = events(c, tenant, workspace);
        // TODO(follow-up): fold from a snapshot instead of the whole history.
        WorkspaceState state =
            WorkspaceState.fold(history.stream().map(StoredEvent::event).toList());
        Decision decision = decider.decide(finished, state, newest);
        Instant now = clock.instant();
        if (decision.outcome() != Decision.Outcome.REJECTED && finished.fencingToken() > newest) {
          advance(c, tenant, workspace, finished.fencingToken());
        }
        long sequence = history.isEmpty() ? 0 : history.get(history.size() - 1).sequence();
        int index = 0;
        for (StateEvent event : decision.events()) {
          append(
              c, tenant, workspace, ++sequence, source.id() + "#" + ++index, finished, event, now);
        }
        StateRecorded recorded =
            new StateRecorded(
                finished.runId(),
                finished.actionId(),
                finished.address(),
                decision.outcome().wireName(),
                decision.error(),
                decision.serial(),
                instanceId(finished));
        EventEnvelope envelope =
            codec.wrapWithId(
                "state-recorded-" + source.id(),
                tenant,
                workspace,
                source.runid(),
                decision.serial(),
                finished.address(),
                recorded);
        Sql.update(
            c,
            "INSERT INTO state.action_outcomes (tenant, workspace, run_id, action_id,"
                + " source_event_id, outcome, serial, recorded_envelope, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)",
            tenant,
            workspace,
            finished.runId(),
            finished.actionId(),
            source.id(),
            decision.outcome().wireName(),
            decision.serial(),
            EventCodec.toJson(envelope),
            now);
        c.commit();
        return new Recorded(envelope, false);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Makes {@code token} the newest fencing token of the workspace unless a newer one was seen.
   *
   * @return the newest token before the call when it was newer than {@code token}, else empty
   */
  public Optional<Long> advanceFencing(String tenant, String workspace, long token)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        long newest = lockWorkspace(c, tenant, workspace);
        if (token < newest) {
          c.rollback();
          return Optional.of(newest);
        }
        advance(c, tenant, workspace, token);
        c.commit();
        return Optional.empty();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** The workspace's history, oldest first (empty for an unknown workspace). */
  public List<StoredEvent> history(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return events(c, tenant, workspace);
    }
  }

  public WorkspaceState currentState(String tenant, String workspace) throws SQLException {
    return WorkspaceState.fold(
        history(tenant, workspace).stream().map(StoredEvent::event).toList());
  }

  private static long lockWorkspace(Connection c, String tenant, String workspace)
      throws SQLException {
    Sql.update(
        c,
        "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
            + " ON CONFLICT (tenant, workspace) DO NOTHING",
        tenant,
        workspace);
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?"
                    + " FOR UPDATE",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Makes {@code token} the workspace's newest; the caller holds the row from lockWorkspace. */
  private static void advance(Connection c, String tenant, String workspace, long token)
      throws SQLException {
    Sql.update(
        c,
        "UPDATE state.fencing SET newest_token = ? WHERE tenant = ? AND workspace = ?",
        token,
        tenant,
        workspace);
  }

  private static Optional<EventEnvelope> previousOutcome(
      Connection c, EventEnvelope source, ActionFinished finished) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT recorded_envelope::text FROM state.action_outcomes WHERE tenant = ?"
                    + " AND (source_event_id = ?"
                    + " OR (workspace = ? AND run_id = ? AND action_id = ?))"
                    + " LIMIT 1",
                source.tenant(),
                source.id(),
                source.workspace(),
                finished.runId(),
                finished.actionId());
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          EventCodec.decode(rs.getString(1).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }

  private static void append(
      Connection c,
      String tenant,
      String workspace,
      long sequence,
      String eventId,
      ActionFinished finished,
      StateEvent event,
      Instant now)
      throws SQLException {
    Sql.update(
        c,
        "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
            + " action_id, actor, type, address, payload, created_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)",
        tenant,
        workspace,
        sequence,
        eventId,
        finished.runId(),
        finished.actionId(),
        finished.executorId() == null ? null : "executor:" + finished.executorId(),
        event.typeName(),
        event.address(),
        toJson(event),
        now);
  }

  private static List<StoredEvent> events(Connection c, String tenant, String workspace)
      throws SQLException {
    List<StoredEvent> events = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT sequence, type, run_id, action_id, address, actor, created_at,"
                    + " payload::text FROM state.state_events WHERE tenant = ? AND workspace = ?"
                    + " ORDER BY sequence",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String type = rs.getString(2);
        events.add(
            new StoredEvent(
                rs.getLong(1),
                type,
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getTimestamp(7).toInstant(),
                fromJson(type, rs.getString(8))));
      }
    }
    return events;
  }

  private static String instanceId(ActionFinished finished) {
    Object id = finished.attributes().get("id");
    return id == null ? null : id.toString();
  }

  private static String toJson(StateEvent event) {
    try {
      return JSON.writeValueAsString(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("state event not serializable", e);
    }
  }

  static StateEvent fromJson(String type, String json) {
    Class<? extends StateEvent> recordType =
        switch (type) {
          case "lineage_assigned" -> StateEvent.LineageAssigned.class;
          case "instance_created", "instance_updated", "instance_replaced", "instance_tainted" ->
              StateEvent.InstanceWritten.class;
          case "instance_deleted", "instance_forgotten" -> StateEvent.InstanceRemoved.class;
          default -> throw new IllegalStateException("unknown stored state event type " + type);
        };
    try {
      return JSON.readValue(json, recordType);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored state event of type " + type + " unreadable", e);
    }
  }
}
