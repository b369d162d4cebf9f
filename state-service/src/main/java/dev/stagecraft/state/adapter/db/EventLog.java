package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.ActionResults;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends events to a workspace's history (ADR 0068): the one-round-trip append of a recorded
 * action result (ADR 0021, 0027, 0052) with a typed answer ({@link Answer}), and the appends of the
 * locked writers ({@link #appendAll}). Never advances a fencing token itself: see {@link
 * FencingLedger}.
 */
final class EventLog {
  private static final ObjectMapper JSON = EventCodec.mapper();

  /**
   * Where appended events come from: their ids are {@code eventIdPrefix#1}, {@code #2}, ...; run,
   * action and actor are stored with each (any may be null).
   */
  record Origin(String eventIdPrefix, String runId, String actionId, String actor) {}

  /**
   * How often a write folds again after losing a race before it gives up (transient): as often as a
   * recording of an action result does ({@link ActionResults#MAX_APPEND_ATTEMPTS}).
   */
  static final int MAX_APPEND_ATTEMPTS = ActionResults.MAX_APPEND_ATTEMPTS;

  private final Clock clock;
  private final EventCodec codec;

  EventLog(Clock clock, EventCodec codec) {
    this.clock = clock;
    this.codec = codec;
  }

  /**
   * What an append of a recorded action result answered: one of four, decided by the database
   * ({@code state.append_events}'s {@code status}) or by the bare insert, never by an error
   * message.
   */
  sealed interface Answer {
    /**
     * Appended: {@code envelope} is the {@code state.recorded} to publish; {@code after} the fold.
     */
    record Appended(EventEnvelope envelope, Folded after) implements Answer {}

    /** Recorded before (a redelivery): {@code previous} is the first {@code state.recorded}. */
    record Duplicate(EventEnvelope previous) implements Answer {}

    /** The fencing token is stale: {@code newest} is the workspace's newest. */
    record Stale(long newest) implements Answer {}

    /** Another writer appended since the head decided on: fold again, decide again. */
    record Moved() implements Answer {}

    /**
     * The function's answer ({@link EventAppend.Answer}, read from its row in one place) for the
     * append of {@code batch}.
     */
    private static Answer of(EventAppend.Answer answer, Batch batch) {
      return switch (answer) {
        case EventAppend.Answer.Appended appended ->
            // an advance with no event of its own appended fencing_advanced (V14): a head further
            // on, the same state; the newest token answered is the newest at that head
            new Appended(
                batch.envelope(),
                new Folded(
                    batch.ids().length == 0 ? appended.head() : batch.after().sequence(),
                    batch.after().state(),
                    batch.after().snapshotSequence(),
                    appended.newest()));
        case EventAppend.Answer.Duplicate duplicate ->
            new Duplicate(EventCodec.decode(duplicate.previous().getBytes(StandardCharsets.UTF_8)));
        case EventAppend.Answer.Stale stale -> new Stale(stale.newest());
        case EventAppend.Answer.Moved moved -> new Moved();
      };
    }
  }

  /** A decision serialized for the append: one element per event in the arrays. */
  private record Batch(
      String[] ids,
      String[] types,
      String[] addresses,
      String[] payloads,
      Long[] serials,
      String snapshot,
      String hostKeys,
      String actor,
      EventEnvelope envelope,
      String envelopeJson,
      Folded after) {}

  /**
   * The one round trip of {@code ActionResults.record}: serializes the decision (events, their
   * version rows, a snapshot when due, learned host keys, the {@code state.recorded} envelope) once
   * and appends it after {@code current}'s head: the bare insert of ADR 0052 in the common case
   * (one event, nothing else to write, the token the newest known at the head), else, or when that
   * wrote nothing, {@code state.append_events} (V7, V14), which appends or answers why not. {@code
   * tokenKnownStale}: the decision was made knowing the token is stale, so the append must not
   * check the token again (a rejection is recorded whatever the token).
   */
  Answer appendOutcome(
      Connection c,
      EventEnvelope source,
      ActionFinished finished,
      Folded current,
      Decision decision,
      boolean tokenKnownStale)
      throws SQLException {
    Batch batch = batch(source, finished, current, decision);
    Timestamp now = Timestamp.from(clock.instant());
    if (batch.ids().length == 1
        && batch.snapshot() == null
        && batch.hostKeys() == null
        && !tokenKnownStale
        && finished.fencingToken() == current.newest()
        && c.getAutoCommit()
        && recordOne(c, source, finished, current, decision, batch, now)) {
      return new Answer.Appended(batch.envelope(), batch.after());
    }
    return appendEvents(c, source, finished, current, decision, batch, tokenKnownStale, now);
  }

  /** Serializes {@code decision}, folding its events onto {@code current} as decided. */
  private Batch batch(
      EventEnvelope source, ActionFinished finished, Folded current, Decision decision) {
    String tenant = source.tenant();
    String workspace = source.workspace();
    List<StateEvent> events = decision.events();
    int n = events.size();
    String[] ids = new String[n];
    String[] types = new String[n];
    String[] addresses = new String[n];
    String[] payloads = new String[n];
    Long[] serials = new Long[n];
    long sequence = current.sequence();
    WorkspaceState state = current.state();
    for (int i = 0; i < n; i++) {
      StateEvent event = events.get(i);
      WorkspaceState before = state;
      // folded as decided: jsonb stores the same values (key order aside), so no read-back
      state = state.apply(event);
      ++sequence;
      ids[i] = source.id() + "#" + (i + 1);
      types[i] = event.typeName();
      addresses[i] = event.address();
      payloads[i] = toJson(event);
      if (VersionIndex.makesVersion(before, state, event)) {
        // indexed now; its digest (a render of the whole state) is left to the first listing
        serials[i] = state.serial();
      }
    }
    long snapshotSequence = current.snapshotSequence();
    String snapshot = null;
    if (n > 0 && sequence - snapshotSequence >= Folds.SNAPSHOT_INTERVAL) {
      snapshot = Folds.snapshotJson(state);
      snapshotSequence = sequence;
    }
    String hostKeys =
        decision.outcome() == Decision.Outcome.REJECTED
            ? null
            : HostKeyStore.firstUseJson(
                tenant, workspace, finished.runId(), finished.learnedHostKeys());
    EventEnvelope envelope = envelope(source, finished, decision);
    String actor = finished.executorId() == null ? null : "executor:" + finished.executorId();
    return new Batch(
        ids,
        types,
        addresses,
        payloads,
        serials,
        snapshot,
        hostKeys,
        actor,
        envelope,
        EventCodec.toJson(envelope),
        new Folded(sequence, state, snapshotSequence, finished.fencingToken()));
  }

  /** The {@code state.recorded} envelope answering {@code source}. */
  private EventEnvelope envelope(EventEnvelope source, ActionFinished finished, Decision decision) {
    StateRecorded recorded =
        new StateRecorded(
            finished.runId(),
            finished.actionId(),
            finished.address(),
            decision.outcome().wireName(),
            decision.error(),
            decision.serial(),
            instanceId(finished));
    return codec.wrapWithId(
        "state-recorded-" + source.id(),
        source.tenant(),
        source.workspace(),
        source.runid(),
        decision.serial(),
        finished.address(),
        recorded);
  }

  /**
   * The bare insert of ADR 0052 ({@link EventAppend#RECORD_ONE}).
   *
   * @return whether it appended; when not, {@code state.append_events} decides and answers why
   */
  private static boolean recordOne(
      Connection c,
      EventEnvelope source,
      ActionFinished finished,
      Folded current,
      Decision decision,
      Batch batch,
      Timestamp now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(EventAppend.RECORD_ONE)) {
      int p =
          EventAppend.bindOneEvent(
              ps,
              0,
              source.tenant(),
              source.workspace(),
              current.sequence(),
              batch.ids()[0],
              finished.runId(),
              finished.actionId(),
              batch.actor(),
              batch.types()[0],
              batch.addresses()[0],
              batch.payloads()[0],
              now);
      EventAppend.bindRecordRest(
          ps,
          p,
          batch.serials()[0],
          finished.runId(),
          finished.actionId(),
          source.id(),
          decision.outcome().wireName(),
          decision.serial(),
          batch.envelopeJson());
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (!EventAppend.isUniqueViolation(e)) {
        throw e;
      }
      return false;
    }
  }

  /** One call of {@code state.append_events} with {@code batch}: its answer. */
  private static Answer appendEvents(
      Connection c,
      EventEnvelope source,
      ActionFinished finished,
      Folded current,
      Decision decision,
      Batch batch,
      boolean tokenKnownStale,
      Timestamp now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(APPEND_EVENTS)) {
      int p = 0;
      ps.setString(++p, source.tenant());
      ps.setString(++p, source.workspace());
      ps.setLong(++p, current.sequence());
      if (tokenKnownStale) {
        ps.setNull(++p, Types.BIGINT);
      } else {
        ps.setLong(++p, finished.fencingToken());
      }
      ps.setBoolean(++p, decision.outcome() != Decision.Outcome.REJECTED);
      ps.setArray(++p, c.createArrayOf("text", batch.ids()));
      ps.setString(++p, finished.runId());
      ps.setString(++p, finished.actionId());
      ps.setString(++p, batch.actor());
      ps.setArray(++p, c.createArrayOf("text", batch.types()));
      ps.setArray(++p, c.createArrayOf("text", batch.addresses()));
      ps.setArray(++p, c.createArrayOf("text", batch.payloads()));
      ps.setArray(++p, c.createArrayOf("int8", batch.serials()));
      ps.setArray(++p, null); // digests: computed by the first listing (VersionIndex)
      ps.setString(++p, batch.snapshot());
      ps.setString(++p, batch.hostKeys());
      ps.setString(++p, source.id());
      ps.setString(++p, decision.outcome().wireName());
      ps.setLong(++p, decision.serial());
      ps.setString(++p, batch.envelopeJson());
      ps.setTimestamp(++p, now);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Answer.of(EventAppend.Answer.read(rs), batch);
      }
    }
  }

  /**
   * One call of {@code state.append_events} (V7): the whole append of {@code ActionResults.record}
   * in one statement, one round trip and (in autocommit) one commit. See the migration for its
   * contract.
   */
  private static final String APPEND_EVENTS =
      "SELECT status, head, newest, previous FROM state.append_events(?, ?, ?, ?, ?, ?::text[],"
          + " ?, ?, ?, ?::text[], ?::text[], ?::text[]::jsonb[], ?::bigint[], ?::text[], ?::jsonb,"
          + " ?::jsonb, ?, ?, ?, ?::jsonb, ?)";

  /**
   * Whether a locked writer whose transaction failed with {@code e} should run again: its first
   * event's sequence was taken by a fast append meanwhile (ADR 0052: the row lock no longer
   * excludes those), so it reads the head again and decides again. Bounded like a recording ({@code
   * ActionResults}).
   */
  static boolean retryAfterLostSequence(Exception e, int attempt) {
    return e instanceof SequenceTaken && attempt < MAX_APPEND_ATTEMPTS;
  }

  /**
   * A locked writer's event found its sequence taken by a fast append (the insert's {@code ON
   * CONFLICT} on the history's primary key did nothing): its transaction rolls back and it decides
   * again. Transient (SQLSTATE 40001) should the attempts be spent.
   */
  static final class SequenceTaken extends SQLException {
    SequenceTaken(String tenant, String workspace, long sequence) {
      super(
          "sequence "
              + sequence
              + " of workspace "
              + tenant
              + "/"
              + workspace
              + " was taken by another write meanwhile; retry later",
          "40001");
    }
  }

  /** The sequence of the workspace's newest event, 0 when it has none. */
  static long headSequence(Connection c, String tenant, String workspace) throws SQLException {
    return Sql.queryLong(
        c,
        "SELECT coalesce(max(sequence), 0) FROM state.state_events"
            + " WHERE tenant = ? AND workspace = ?",
        tenant,
        workspace);
  }

  /**
   * Appends {@code events} after {@code current} (whose sequence is the head read under the
   * workspace lock), adds a snapshot when due, and returns the fold after them.
   */
  static Folded appendAll(
      Connection c,
      String tenant,
      String workspace,
      Folded current,
      List<StateEvent> events,
      Origin origin,
      Instant now)
      throws SQLException {
    long sequence = current.sequence();
    WorkspaceState state = current.state();
    int index = 0;
    for (StateEvent event : events) {
      // fold what the database stored (jsonb), so the cache equals a fold read back later
      WorkspaceState before = state;
      state =
          state.apply(
              append(
                  c,
                  tenant,
                  workspace,
                  ++sequence,
                  origin.eventIdPrefix() + "#" + ++index,
                  origin,
                  event,
                  now));
      if (VersionIndex.makesVersion(before, state, event)) {
        VersionIndex.indexVersion(
            c,
            tenant,
            workspace,
            new StateStore.Version(
                state.serial(),
                sequence,
                now,
                event.typeName(),
                origin.runId(),
                origin.actor(),
                VersionIndex.digest(TerraformStateV4.render(state, state.lineage()))));
      }
    }
    long snapshotSequence = current.snapshotSequence();
    if (sequence - snapshotSequence >= Folds.SNAPSHOT_INTERVAL) {
      Folds.writeSnapshot(c, tenant, workspace, sequence, state, now);
      snapshotSequence = sequence;
    }
    return new Folded(sequence, state, snapshotSequence);
  }

  /**
   * Appends {@code event} and returns it as stored (read back from its jsonb payload).
   *
   * @throws SequenceTaken when a fast append took {@code sequence} (ADR 0052)
   */
  private static StateEvent append(
      Connection c,
      String tenant,
      String workspace,
      long sequence,
      String eventId,
      Origin origin,
      StateEvent event,
      Instant now)
      throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
                    + " action_id, actor, type, address, payload, created_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)"
                    + " ON CONFLICT (tenant, workspace, sequence) DO NOTHING RETURNING payload::text",
                tenant,
                workspace,
                sequence,
                eventId,
                origin.runId(),
                origin.actionId(),
                origin.actor(),
                event.typeName(),
                event.address(),
                toJson(event),
                now);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new SequenceTaken(tenant, workspace, sequence);
      }
      return fromJson(event.typeName(), rs.getString(1));
    }
  }

  /** The events with {@code after < sequence <= upTo}, oldest first. */
  static List<StateStore.StoredEvent> events(
      Connection c, String tenant, String workspace, long after, long upTo) throws SQLException {
    List<StateStore.StoredEvent> events = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT sequence, type, run_id, action_id, address, actor, created_at,"
                    + " payload::text FROM state.state_events WHERE tenant = ? AND workspace = ?"
                    + " AND sequence > ? AND sequence <= ? ORDER BY sequence",
                tenant,
                workspace,
                after,
                upTo);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String type = rs.getString(2);
        events.add(
            new StateStore.StoredEvent(
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

  static String toJson(StateEvent event) {
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
          case "instance_moved" -> StateEvent.InstanceMoved.class;
          case "instance_marked_tainted", "instance_untainted" ->
              StateEvent.InstanceTaintChanged.class;
          case "state_pushed", "state_rolled_back" -> StateEvent.StateReplaced.class;
          case "state_deleted" -> StateEvent.StateDeleted.class;
          case "lock_force_unlocked" -> StateEvent.LockForceUnlocked.class;
          case "fencing_advanced" -> StateEvent.FencingAdvanced.class;
          case "outputs_written" -> StateEvent.OutputsWritten.class;
          default -> throw new IllegalStateException("unknown stored state event type " + type);
        };
    try {
      return JSON.readValue(json, recordType);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored state event of type " + type + " unreadable", e);
    }
  }
}
