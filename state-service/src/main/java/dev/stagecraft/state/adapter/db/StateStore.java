package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.LruMaps;
import dev.stagecraft.state.adapter.document.CompressedContent;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.OutputsDecision;
import dev.stagecraft.state.history.StateDecider;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StateSnapshot;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.TaintDecision;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import dev.stagecraft.state.hostkey.HostKey;
import jakarta.inject.Singleton;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The workspace state history in PostgreSQL (schema {@code state}).
 *
 * <p>Concurrency: every write to a workspace first takes its {@code state.fencing} row with {@code
 * SELECT ... FOR UPDATE}, so writes to one workspace are serialized across threads and service
 * instances by the database — except the common case of {@link #record} (one event, ADR 0027),
 * which takes the row {@code FOR SHARE} and appends at the head it decided on, the primary key
 * refusing a concurrent writer of the same sequence ({@link EventAppend}); reads take no locks
 * (they see the last committed history).
 *
 * <p>Folding: a workspace's state is the fold of its events 1..head. It starts from the newest
 * {@code state.state_snapshots} row at or below the head and folds only the events after it; a
 * write adds a snapshot in the transaction of its events once {@value #SNAPSHOT_INTERVAL} events
 * accumulated since the last one. On top of that an in-process cache keeps the last fold per
 * workspace, tagged with its head sequence; it is used only when that sequence equals the head read
 * in the current transaction (for a write: after taking the lock), so a write by another instance
 * in between just makes it miss, never serve stale state. Events are never changed and sequences
 * never reused, so "the fold of 1..n" means the same thing whoever computed it and whenever. The
 * cache is thread-safe and keeps at most {@value #CACHED_WORKSPACES} workspaces (least recently
 * used leave first).
 *
 * <p>Stored documents (ADR 0022): a push stores the document's bytes once in {@code
 * state.state_documents} and appends a {@code state_pushed} event that references them ({@link
 * #pushDocument}). A fold parses such a document only when it needs the state (an event follows it,
 * or the fold is the result); {@link #currentDocument} answers "the state is exactly this stored
 * document" from the head event alone, so a pull streams the bytes ({@link #openDocument}).
 *
 * <p>Idempotency: {@link #record} is keyed by the envelope id <em>and</em> by (run id, action id)
 * via {@code state.action_outcomes}; a second delivery appends nothing and returns the very same
 * {@code state.recorded} envelope as the first.
 */
@Singleton
public final class StateStore {
  public static final String SOURCE = "/stagecraft/state-service";
  private static final ObjectMapper JSON = EventCodec.mapper();
  private static final TypeReference<Map<String, Object>> JSON_OBJECT = new TypeReference<>() {};
  private static final ObjectMapper CANONICAL =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  /** A write adds a snapshot once this many events were appended since the newest one. */
  static final int SNAPSHOT_INTERVAL = 100;

  /** How many workspaces' folds the in-process cache keeps. */
  static final int CACHED_WORKSPACES = 1024;

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

  /**
   * Decides, inside the recording transaction (after the workspace row is locked), whether an
   * action result may be recorded at all; a refusal is recorded as {@code rejected} with its reason
   * (like a stale fencing token). See {@link RunCredentialStore#refusal}.
   */
  @FunctionalInterface
  public interface OutcomeGate {
    /** Admits every result: for tests and tools that record results they trust. */
    OutcomeGate TRUSTED = (c, tenant, workspace, finished) -> Optional.empty();

    /**
     * @return why the result must not be recorded, or empty to record it
     */
    Optional<String> refusal(Connection c, String tenant, String workspace, ActionFinished finished)
        throws SQLException;
  }

  /**
   * The fold of a workspace's events 1..{@code sequence}, its newest snapshot's sequence, and the
   * workspace's newest fencing token at {@code sequence} ({@link EventAppend#UNKNOWN_TOKEN} when
   * not known): read in one snapshot with the head, or answered by the append that made the head.
   * Known, it lets {@link #record} append with the bare insert of ADR 0052.
   */
  private record Folded(long sequence, WorkspaceState state, long snapshotSequence, long newest) {
    Folded(long sequence, WorkspaceState state, long snapshotSequence) {
      this(sequence, state, snapshotSequence, EventAppend.UNKNOWN_TOKEN);
    }

    Folded knowing(long newestToken) {
      return new Folded(sequence, state, snapshotSequence, newestToken);
    }
  }

  private record WorkspaceKey(String tenant, String workspace) {}

  /**
   * Where appended events come from: their ids are {@code eventIdPrefix#1}, {@code #2}, ...; run,
   * action and actor are stored with each (any may be null).
   */
  private record Origin(String eventIdPrefix, String runId, String actionId, String actor) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final StateDecider decider;
  private final EventCodec codec;

  /** The newest fold seen per workspace; valid only while its sequence is the workspace's head. */
  /**
   * Workspaces whose state is exactly a stored document (ADR 0022): its head event is that
   * document's {@code state_pushed}, by head sequence. Kept apart from {@link #folds}, which only
   * ever holds parsed states; used only while the sequence is the workspace's head.
   */
  private final Map<WorkspaceKey, DocumentHead> documentHeads =
      LruMaps.synchronizedLru(CACHED_WORKSPACES);

  /** The workspace's head event {@code sequence} made its state exactly {@code document}. */
  private record DocumentHead(long sequence, StoredDocument document) {}

  private final Map<WorkspaceKey, Folded> folds = LruMaps.synchronizedLru(CACHED_WORKSPACES);

  public StateStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.decider = new StateDecider(() -> UUID.randomUUID().toString());
    this.codec = new EventCodec(SOURCE, clock, () -> UUID.randomUUID().toString());
  }

  /**
   * Records an executor's action result in one round trip (ADR 0021): fold (the cached fold without
   * reading anything, else the newest snapshot + the events after it), decide, then one statement:
   * for one event with nothing else to write, {@link EventAppend#RECORD_ONE} (ADR 0027: the event,
   * its version row and the outcome, written only when the token is the newest and the head is
   * still the one decided on); otherwise, or when that wrote nothing, one call of {@code
   * state.append_events} (V7) that, in one transaction under the workspace's row lock, decides
   * everything again: it answers a redelivery with the first {@code state.recorded}, refuses a
   * stale fencing token, checks that the head is still the one decided on, and appends the events,
   * their version rows, the snapshot when due, the host keys learned on first use (unless rejected;
   * see {@link HostKeyStore}) and the outcome. A lost race (another writer appended: {@code moved})
   * folds and decides again; a stale token is decided again as {@code rejected} — so sequences
   * never have gaps or duplicates, whatever runs concurrently. Records without checking the run's
   * credential ({@link OutcomeGate#TRUSTED}); the Kafka listener uses {@link #record(EventEnvelope,
   * ActionFinished, OutcomeGate)}.
   *
   * <p>Thread-safe; concurrent calls for one workspace (from any instance) serialize in the
   * database.
   *
   * @throws SQLException a database failure (transient or not: see the listener), or, as SQLSTATE
   *     40001, after {@value #MAX_APPEND_ATTEMPTS} lost races in a row
   */
  public Recorded record(EventEnvelope source, ActionFinished finished) throws SQLException {
    return record(source, finished, OutcomeGate.TRUSTED);
  }

  /**
   * As {@link #record(EventEnvelope, ActionFinished)}, but a result {@code gate} refuses is
   * recorded {@code rejected} with the gate's reason (nothing appended, no host key learned). A
   * redelivery of an already recorded result gets its first answer, whatever the gate says now. The
   * gate runs before the append, on its own (a read on the same connection, outside the append's
   * transaction); the append's own fencing check still refuses a token superseded meanwhile.
   */
  public Recorded record(EventEnvelope source, ActionFinished finished, OutcomeGate gate)
      throws SQLException {
    String tenant = source.tenant();
    String workspace = source.workspace();
    try (Connection c = dataSource.getConnection()) {
      // Optimistic: decide on the cached fold (no read at all); the append checks, under the
      // workspace's row lock, that its head is still the workspace's head ("moved" otherwise).
      Folded current = folds.get(new WorkspaceKey(tenant, workspace));
      // The newest fencing token is not read up front: the append refuses a stale token ("stale"
      // with the newest), and the result is then decided again as rejected for that reason.
      long newest = Long.MIN_VALUE;
      for (int attempt = 1; ; attempt++) {
        if (current == null) {
          long[] head = headAndNewestToken(c, tenant, workspace);
          current = fold(c, tenant, workspace, head[0]).knowing(head[1]);
        }
        Decision decision = decider.decide(finished, current.state(), newest);
        // a result rejected anyway (stale fencing token, invalid) keeps that reason
        Optional<String> refusal =
            decision.outcome() == Decision.Outcome.REJECTED
                ? Optional.empty()
                : gate.refusal(c, tenant, workspace, finished);
        if (refusal.isPresent()) {
          decision =
              new Decision(
                  List.of(), Decision.Outcome.REJECTED, refusal.get(), current.state().serial());
        }
        Appended appended =
            appendOutcome(c, source, finished, current, decision, newest != Long.MIN_VALUE);
        switch (appended.status()) {
          case "appended" -> {
            remember(tenant, workspace, appended.after());
            return new Recorded(appended.envelope(), false);
          }
          case "duplicate" -> {
            return new Recorded(
                EventCodec.decode(appended.previous().getBytes(StandardCharsets.UTF_8)), true);
          }
          case "stale" -> newest = appended.newest();
          case "moved" -> current = null; // another writer appended: fold again, decide again
          default ->
              throw new IllegalStateException("state.append_events answered " + appended.status());
        }
        if (attempt >= MAX_APPEND_ATTEMPTS) {
          throw new SQLException(
              "recording "
                  + source.id()
                  + " lost the race for workspace "
                  + tenant
                  + "/"
                  + workspace
                  + " "
                  + attempt
                  + " times in a row; retry later",
              "40001");
        }
      }
    }
  }

  /** How often {@link #record} folds again after losing a race before it gives up (transient). */
  static final int MAX_APPEND_ATTEMPTS = 1000;

  /** What one {@code state.append_events} call of {@link #record} did. */
  private record Appended(
      String status, long newest, String previous, EventEnvelope envelope, Folded after) {}

  /**
   * The one round trip of {@link #record}: serializes the decision (events, their version rows, a
   * snapshot when due, learned host keys, the {@code state.recorded} envelope) once and hands it to
   * {@code state.append_events} (V7), which appends it after {@code current}'s head or answers why
   * not. {@code tokenKnownStale}: the decision was made knowing the token is stale, so the append
   * must not check the token again (a rejection is recorded whatever the token).
   */
  private Appended appendOutcome(
      Connection c,
      EventEnvelope source,
      ActionFinished finished,
      Folded current,
      Decision decision,
      boolean tokenKnownStale)
      throws SQLException {
    String tenant = source.tenant();
    String workspace = source.workspace();
    boolean rejected = decision.outcome() == Decision.Outcome.REJECTED;
    Instant now = clock.instant();
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
      if (makesVersion(before, state, event)) {
        // indexed now; its digest (a render of the whole state) is left to the first listing
        serials[i] = state.serial();
      }
    }
    long snapshotSequence = current.snapshotSequence();
    String snapshot = null;
    if (n > 0 && sequence - snapshotSequence >= SNAPSHOT_INTERVAL) {
      snapshot = snapshotJson(state);
      snapshotSequence = sequence;
    }
    String hostKeys =
        rejected
            ? null
            : HostKeyStore.firstUseJson(
                tenant, workspace, finished.runId(), finished.learnedHostKeys());
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
    String actor = finished.executorId() == null ? null : "executor:" + finished.executorId();
    String envelopeJson = EventCodec.toJson(envelope);
    Folded after = new Folded(sequence, state, snapshotSequence, finished.fencingToken());
    // the common case (one event, nothing else to write, the token the newest known at the head):
    // the bare insert of ADR 0052; when it writes nothing, state.append_events below decides and
    // answers why
    if (n == 1
        && snapshot == null
        && hostKeys == null
        && !tokenKnownStale
        && finished.fencingToken() == current.newest()
        && c.getAutoCommit()) {
      try (PreparedStatement ps = c.prepareStatement(EventAppend.RECORD_ONE)) {
        int p =
            EventAppend.bindOneEvent(
                ps,
                0,
                tenant,
                workspace,
                current.sequence(),
                ids[0],
                finished.runId(),
                finished.actionId(),
                actor,
                types[0],
                addresses[0],
                payloads[0],
                Timestamp.from(now));
        EventAppend.bindRecordRest(
            ps,
            p,
            serials[0],
            finished.runId(),
            finished.actionId(),
            source.id(),
            decision.outcome().wireName(),
            decision.serial(),
            envelopeJson);
        if (ps.executeUpdate() == 1) {
          return new Appended("appended", finished.fencingToken(), null, envelope, after);
        }
      } catch (SQLException e) {
        if (!EventAppend.isUniqueViolation(e)) {
          throw e;
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(APPEND_EVENTS)) {
      int p = 0;
      ps.setString(++p, tenant);
      ps.setString(++p, workspace);
      ps.setLong(++p, current.sequence());
      if (tokenKnownStale) {
        ps.setNull(++p, Types.BIGINT);
      } else {
        ps.setLong(++p, finished.fencingToken());
      }
      ps.setBoolean(++p, !rejected);
      ps.setArray(++p, c.createArrayOf("text", ids));
      ps.setString(++p, finished.runId());
      ps.setString(++p, finished.actionId());
      ps.setString(++p, actor);
      ps.setArray(++p, c.createArrayOf("text", types));
      ps.setArray(++p, c.createArrayOf("text", addresses));
      ps.setArray(++p, c.createArrayOf("text", payloads));
      ps.setArray(++p, c.createArrayOf("int8", serials));
      ps.setArray(++p, null); // digests: computed by the first listing (withDigests)
      ps.setString(++p, snapshot);
      ps.setString(++p, hostKeys);
      ps.setString(++p, source.id());
      ps.setString(++p, decision.outcome().wireName());
      ps.setLong(++p, decision.serial());
      ps.setString(++p, envelopeJson);
      ps.setTimestamp(++p, Timestamp.from(now));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        String status = rs.getString(1);
        long newest = rs.getLong(3);
        if ("appended".equals(status)) {
          // an advance with no event of its own appended fencing_advanced (V14): a head further on,
          // the same state; the newest token answered is the newest at that head
          after =
              new Folded(
                  n == 0 ? rs.getLong(2) : after.sequence(),
                  after.state(),
                  after.snapshotSequence(),
                  newest);
        }
        return new Appended(status, newest, rs.getString(4), envelope, after);
      }
    }
  }

  /**
   * One call of {@code state.append_events} (V7): the whole append of {@link #record} in one
   * statement, one round trip and (in autocommit) one commit. See the migration for its contract.
   */
  private static final String APPEND_EVENTS =
      "SELECT status, head, newest, previous FROM state.append_events(?, ?, ?, ?, ?, ?::text[],"
          + " ?, ?, ?, ?::text[], ?::text[], ?::text[]::jsonb[], ?::bigint[], ?::text[], ?::jsonb,"
          + " ?::jsonb, ?, ?, ?, ?::jsonb, ?)";

  /**
   * Makes {@code token} the newest fencing token of the workspace unless a newer one was seen.
   *
   * @return the newest token before the call when it was newer than {@code token}, else empty
   */
  public Optional<Long> advanceFencing(String tenant, String workspace, long token)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      long[] advanced = advanceFencing(c, tenant, workspace, token, null);
      return advanced[0] == 1 ? Optional.empty() : Optional.of(advanced[1]);
    }
  }

  /**
   * The outcome of {@link #openRun}: {@code newerToken} is present (and nothing was written) when
   * the workspace already saw a newer fencing token. Otherwise the token is the workspace's newest,
   * {@code credentialIssued} says whether the run's credential was stored (false: the run already
   * ended, its credential revoked), and then {@code state} and {@code hostKeys} are what the run
   * works from (null and empty when it was not).
   */
  public record RunOpening(
      Optional<Long> newerToken,
      boolean credentialIssued,
      WorkspaceState state,
      List<HostKey> hostKeys) {}

  /**
   * Opens a run that was just granted the workspace lock with {@code token} (docs/adr/0025, ADR
   * 0047), in two statements. The first, one autocommit statement, advances the workspace's fencing
   * token (as {@link #advanceFencing} does: never backwards) and, only when it did, stores the
   * run's credential ({@code credentialHash}, refused for a run whose credential was revoked). The
   * second reads the newest event's sequence and the host keys the run must enforce, with a
   * snapshot taken after the first committed: every result an older holder recorded is in it, and
   * none can be recorded after (its token is older than the workspace's newest now), so the state
   * and the keys are those the lock protects, as when they were read under the row lock.
   */
  public RunOpening openRun(
      String tenant, String workspace, long token, String runId, String credentialHash)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Folded before = folds.get(new WorkspaceKey(tenant, workspace));
      Long newest;
      long appended;
      long head;
      long issued;
      for (int attempt = 1; ; attempt++) {
        Timestamp now = Timestamp.from(clock.instant());
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
          ps.setString(++p, credentialHash);
          ps.setLong(++p, token);
          ps.setTimestamp(++p, now);
          ps.setLong(++p, token);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            newest = (Long) rs.getObject(1);
            appended = rs.getLong(2); // 0: no event appended
            head = rs.getLong(3);
            issued = rs.getLong(4);
          }
        }
        if (newest == null) {
          // the workspace's first opening: create its fencing row (token 0), then again
          Sql.update(
              c,
              "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
                  + " ON CONFLICT (tenant, workspace) DO NOTHING",
              tenant,
              workspace);
        } else if (newest > token) {
          return new RunOpening(Optional.of(newest), false, null, List.of());
        } else if (newest == token || appended > 0) {
          break;
        } else if (attempt >= MAX_APPEND_ATTEMPTS) {
          throw new SQLException(
              "opening run " + runId + " lost the workspace's next sequence " + attempt + " times",
              "40001");
        }
        // else the head moved between the statement's snapshot and its insert: again
      }
      if (issued == 0) {
        return new RunOpening(Optional.empty(), false, null, List.of());
      }
      if (appended > 0) {
        head = appended;
      }
      // the run's token is the newest at head (its fencing_advanced event, or the head it found
      // when it was the newest already): every result an older holder recorded is at or below it,
      // and none can be recorded after it
      List<HostKey> keys = new ArrayList<>();
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT k.* FROM ("
                      + HostKeyStore.keysForQuery()
                      + ") k"
                      + " ORDER BY k.host, k.port, k.id",
                  tenant,
                  workspace);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          keys.add(HostKeyStore.keyAt(rs, 1));
        }
      }
      // the fold the cache held right before the opening's own event is the state at it
      Folded current =
          (appended > 0 && before != null && before.sequence() == appended - 1
                  ? new Folded(appended, before.state(), before.snapshotSequence())
                  : fold(c, tenant, workspace, head))
              .knowing(token);
      remember(tenant, workspace, current);
      return new RunOpening(Optional.empty(), true, current.state(), keys);
    }
  }

  /**
   * The run opening's one statement (ADR 0047, ADR 0052), in autocommit: the workspace's fencing
   * row taken {@code FOR UPDATE} (its newest committed token); when the run's token is newer, its
   * {@code fencing_advanced} event at the head + 1 ({@code ON CONFLICT DO NOTHING}) and, only when
   * that event was written, the token made the newest; the run's credential when the token is the
   * newest (already, or by this event), refused for a run whose credential was revoked. Answers the
   * newest token before (null: no fencing row yet), the event's sequence (null: none), the head the
   * statement saw and whether the credential was stored. The head is read with the statement's
   * snapshot, which may predate a write that committed while the row lock was awaited or a fast
   * append: then the event's sequence is taken, nothing is written, and the caller runs it again.
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
          + " credential_hash, fencing_token, created_at)"
          + " SELECT ?, ?, ?, ?, ?, ? FROM cur WHERE cur.newest_token = ?::bigint"
          + " OR EXISTS (SELECT FROM ev)"
          + " ON CONFLICT (tenant, workspace, run_id) DO UPDATE SET"
          + " credential_hash = excluded.credential_hash,"
          + " fencing_token = excluded.fencing_token"
          + " WHERE state.run_credentials.revoked_at IS NULL RETURNING 1)"
          + " SELECT (SELECT newest_token FROM cur), (SELECT sequence FROM ev),"
          + " (SELECT head FROM h), (SELECT count(*) FROM cr), (SELECT count(*) FROM upd)";

  /**
   * Marks the instance at {@code address} tainted or clears the mark, in one transaction with the
   * same locking as {@link #record}: lock the workspace, fold, {@link StateDecider#decideTaint
   * decide}, append, snapshot when due. A fencing token newer than the newest seen becomes the
   * newest (as for a recorded action).
   *
   * <p>Not idempotent by an id: marking a tainted instance again changes nothing, but clearing a
   * mark twice is refused the second time ({@link TaintDecision.Rejection#NOT_TAINTED}).
   *
   * @param actor who asked (stored with the event), or null
   * @return the decision; nothing was written unless it was accepted with events
   */
  public TaintDecision changeTaint(
      String tenant,
      String workspace,
      String address,
      boolean tainted,
      long fencingToken,
      String actor)
      throws SQLException {
    return decideAndAppend(
        tenant,
        workspace,
        fencingToken,
        "taint-",
        null,
        actor,
        (state, newest) -> decider.decideTaint(address, tainted, fencingToken, state, newest),
        decision -> decision.accepted() ? decision.events() : null);
  }

  /**
   * Records a run's root outputs (docs/adr/0064) in one transaction with the same locking as {@link
   * #changeTaint}: lock the workspace, fold, {@link StateDecider#decideOutputs decide} with the
   * newest fencing token (a stale one is refused, nothing written), append {@code outputs_written}
   * under the run's id, snapshot when due. The same outputs again append nothing, so a retry is
   * harmless.
   *
   * @param outputs as the planner sent them (checked by the decider)
   */
  public OutputsDecision recordOutputs(
      String tenant, String workspace, String runId, long fencingToken, Object outputs)
      throws SQLException {
    return decideAndAppend(
        tenant,
        workspace,
        fencingToken,
        "outputs-",
        runId,
        null,
        (state, newest) -> decider.decideOutputs(outputs, fencingToken, state, newest),
        decision -> decision.accepted() && !decision.events().isEmpty() ? decision.events() : null);
  }

  /**
   * A state version: the state after an event that changed the serial.
   *
   * @param digest SHA-256 (hex) of the version's v4 document in canonical JSON (keys sorted)
   */
  public record Version(
      long serial,
      long sequence,
      Instant time,
      String type,
      String runId,
      String actor,
      String digest) {}

  /**
   * Makes a whole-document change (push, rollback, delete) in one transaction with the same locking
   * as {@link #record}: lock the workspace, fold, decide with the newest fencing token, append,
   * snapshot when due. A fencing token newer than the newest seen becomes the newest when the
   * change is accepted.
   *
   * @param decide the decision, given the current state and the newest fencing token
   * @param fencingToken the writer's token; a write made without holding the lock passes the newest
   *     token seen, which is not stale but advances nothing
   * @param actor who asked (stored with the events)
   * @return the outcome; nothing was written unless it was accepted with events
   */
  public DocumentDecider.Outcome changeDocument(
      String tenant,
      String workspace,
      long fencingToken,
      String runId,
      String actor,
      BiFunction<WorkspaceState, Long, DocumentDecider.Outcome> decide)
      throws SQLException {
    return decideAndAppend(
        tenant,
        workspace,
        fencingToken,
        "document-",
        runId,
        actor,
        decide,
        outcome -> outcome.accepted() && !outcome.events().isEmpty() ? outcome.events() : null);
  }

  /**
   * The transaction {@link #changeTaint} and {@link #changeDocument} share: lock the workspace,
   * fold, decide with the newest fencing token; when {@code toAppend} gives the decision's events
   * (null: write nothing, roll back), advance the newest token to {@code fencingToken} if it is
   * newer and append the events under a new origin {@code originPrefix + uuid}. The cache learns
   * the resulting state either way.
   */
  private <D> D decideAndAppend(
      String tenant,
      String workspace,
      long fencingToken,
      String originPrefix,
      String runId,
      String actor,
      BiFunction<WorkspaceState, Long, D> decide,
      Function<D, List<StateEvent>> toAppend)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (int attempt = 1; ; attempt++) {
        try {
          long newest = lockWorkspace(c, tenant, workspace);
          long head = headSequence(c, tenant, workspace);
          Folded current = fold(c, tenant, workspace, head);
          D decision = decide.apply(current.state(), newest);
          List<StateEvent> events = toAppend.apply(decision);
          if (events == null) {
            c.rollback();
            remember(tenant, workspace, current);
            return decision;
          }
          if (fencingToken > newest) {
            advance(c, tenant, workspace, fencingToken);
          }
          Folded after =
              appendAll(
                  c,
                  tenant,
                  workspace,
                  current,
                  events,
                  new Origin(originPrefix + UUID.randomUUID(), runId, null, actor),
                  clock.instant());
          c.commit();
          remember(tenant, workspace, after.knowing(Math.max(newest, fencingToken)));
          return decision;
        } catch (SQLException | RuntimeException e) {
          Sql.rollbackAfter(c, e);
          if (!retryAfterLostSequence(e, attempt)) {
            throw e;
          }
        }
      }
    }
  }

  /**
   * A push lost its event's sequence to a fast append for the {@code attempt}-th time: it reads the
   * head again, up to {@link #MAX_APPEND_ATTEMPTS} times, as {@link #record} does.
   *
   * @throws SQLException SQLSTATE 40001 (transient) once the attempts are spent
   */
  private static void lostSequence(String tenant, String workspace, int attempt)
      throws SQLException {
    if (attempt >= MAX_APPEND_ATTEMPTS) {
      throw new SQLException(
          "a push to workspace "
              + tenant
              + "/"
              + workspace
              + " lost the race for its sequence "
              + attempt
              + " times in a row; retry later",
          "40001");
    }
  }

  /**
   * Whether a locked writer whose transaction failed with {@code e} should run again: its first
   * event's sequence was taken by a fast append meanwhile (ADR 0052: the row lock no longer
   * excludes those), so it reads the head again and decides again. Bounded like {@link #record}.
   */
  private static boolean retryAfterLostSequence(Exception e, int attempt) {
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

  /**
   * Records in the workspace's history that its lock was forced open (who, why); changes no state.
   */
  public void recordForceUnlock(
      String tenant, String workspace, StateEvent.LockForceUnlocked event, String actor)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (int attempt = 1; ; attempt++) {
        try {
          long newest = lockWorkspace(c, tenant, workspace);
          long head = headSequence(c, tenant, workspace);
          Folded current = fold(c, tenant, workspace, head);
          Folded after =
              appendAll(
                  c,
                  tenant,
                  workspace,
                  current,
                  List.of(event),
                  new Origin("force-unlock-" + UUID.randomUUID(), null, null, actor),
                  clock.instant());
          c.commit();
          remember(tenant, workspace, after.knowing(newest));
          return;
        } catch (SQLException | RuntimeException e) {
          Sql.rollbackAfter(c, e);
          if (!retryAfterLostSequence(e, attempt)) {
            throw e;
          }
        }
      }
    }
  }

  /** The newest fencing token seen for the workspace (0 when none). */
  public long newestFencingToken(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
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
   * Every version of the workspace's state, oldest first: the state after each event that changed
   * the serial (or replaced the whole document). Read from the version index ({@code
   * state.state_versions}, written with each such event), so a listing costs one indexed query
   * whatever the history's length. A workspace whose history predates the index is indexed once, by
   * its first listing, under the workspace's lock (one fold of its history).
   */
  public List<Version> versions(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (needsBackfill(c, tenant, workspace)) {
        backfillVersions(c, tenant, workspace);
      }
      List<Version> versions = new ArrayList<>();
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT serial, sequence, created_at, type, run_id, actor, digest"
                      + " FROM state.state_versions WHERE tenant = ? AND workspace = ?"
                      + " ORDER BY sequence",
                  tenant,
                  workspace);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          versions.add(
              new Version(
                  rs.getLong(1),
                  rs.getLong(2),
                  rs.getTimestamp(3).toInstant(),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getString(7)));
        }
      }
      return withDigests(c, tenant, workspace, versions);
    }
  }

  /**
   * {@code versions} with every missing digest computed and stored. An append indexes its version
   * without a digest (that would cost a render of the whole state per append); the first listing
   * folds to each such version once, renders and hashes it, and sets the row's digest (the one
   * update its trigger permits: NULL to a value). Concurrent listings compute the same value; the
   * first to store it wins, the others' update changes nothing.
   */
  private List<Version> withDigests(
      Connection c, String tenant, String workspace, List<Version> versions) throws SQLException {
    List<Version> complete = new ArrayList<>(versions.size());
    for (Version v : versions) {
      if (v.digest() != null) {
        complete.add(v);
        continue;
      }
      WorkspaceState state = fold(c, tenant, workspace, v.sequence()).state();
      String digest = digest(TerraformStateV4.render(state, state.lineage()));
      Sql.update(
          c,
          "UPDATE state.state_versions SET digest = ? WHERE tenant = ? AND workspace = ?"
              + " AND sequence = ? AND digest IS NULL",
          digest,
          tenant,
          workspace,
          v.sequence());
      complete.add(
          new Version(v.serial(), v.sequence(), v.time(), v.type(), v.runId(), v.actor(), digest));
    }
    return complete;
  }

  /**
   * The state as it was at version {@code serial} (the newest version with that serial, should a
   * forced push or a push after a deletion have repeated one), or empty when there is none. Finds
   * the version's sequence in the index, then folds from the newest snapshot at or below it.
   */
  public Optional<WorkspaceState> version(String tenant, String workspace, long serial)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (needsBackfill(c, tenant, workspace)) {
        backfillVersions(c, tenant, workspace);
      }
      long sequence;
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT max(sequence) FROM state.state_versions"
                      + " WHERE tenant = ? AND workspace = ? AND serial = ?",
                  tenant,
                  workspace,
                  serial);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        sequence = rs.getLong(1);
        if (rs.wasNull()) {
          return Optional.empty();
        }
      }
      return Optional.of(fold(c, tenant, workspace, sequence).state());
    }
  }

  /** Whether an appended event made a version: it changed the serial or replaced the document. */
  private static boolean makesVersion(
      WorkspaceState before, WorkspaceState after, StateEvent event) {
    return after.serial() != before.serial() || event instanceof StateEvent.StateReplaced;
  }

  private static void indexVersion(Connection c, String tenant, String workspace, Version v)
      throws SQLException {
    Sql.update(
        c,
        "INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id,"
            + " actor, digest, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (tenant, workspace, sequence) DO NOTHING",
        tenant,
        workspace,
        v.sequence(),
        v.serial(),
        v.type(),
        v.runId(),
        v.actor(),
        v.digest(),
        v.time());
  }

  private static boolean needsBackfill(Connection c, String tenant, String workspace)
      throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT 1 FROM state.state_versions_backfill WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      return rs.next();
    }
  }

  /**
   * Indexes the versions of a history written before the index existed: one fold of the whole
   * history under the workspace's lock (so no write interleaves), then the workspace leaves the
   * backfill list. Rows a write already indexed are kept (same content).
   */
  private static void backfillVersions(Connection c, String tenant, String workspace)
      throws SQLException {
    c.setAutoCommit(false);
    try {
      lockWorkspace(c, tenant, workspace);
      if (needsBackfill(c, tenant, workspace)) {
        WorkspaceState state = WorkspaceState.EMPTY;
        for (StoredEvent e : events(c, tenant, workspace, 0, Long.MAX_VALUE)) {
          StoredDocument stored =
              e.event() instanceof StateEvent.StateReplaced r ? r.stored() : null;
          WorkspaceState next =
              stored != null ? loadDocument(c, tenant, workspace, stored) : state.apply(e.event());
          if (makesVersion(state, next, e.event())) {
            indexVersion(
                c,
                tenant,
                workspace,
                new Version(
                    next.serial(),
                    e.sequence(),
                    e.time(),
                    e.type(),
                    e.runId(),
                    e.actor(),
                    stored != null
                        ? stored.digest()
                        : digest(TerraformStateV4.render(next, next.lineage()))));
          }
          state = next;
        }
        Sql.update(
            c,
            "DELETE FROM state.state_versions_backfill WHERE tenant = ? AND workspace = ?",
            tenant,
            workspace);
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      Sql.rollbackAfter(c, e);
      throw e; // the caller closes the connection; the pool restores auto-commit
    }
    c.setAutoCommit(true);
  }

  /** SHA-256 (hex) of a JSON value written with sorted keys. */
  public static String digest(Object json) {
    try {
      byte[] bytes = CANONICAL.writeValueAsBytes(json);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot digest a state document", e);
    }
  }

  /**
   * Pushes a document received into {@code upload} (ADR 0022), with the rules of {@link
   * DocumentDecider#pushStored}, in one transaction with the same locking as {@link
   * #changeDocument}: lock the workspace, read its head without parsing a stored document, decide,
   * store the bytes once in {@code state.state_documents} (streamed from the upload; nothing when
   * the same bytes are stored already), append a small {@code state_pushed} event that references
   * them, index the version with the document's SHA-256. Four round trips (ADR 0026): the lock, the
   * head (plus the head event when it is not cached), one statement for every write, the commit.
   * Memory: the document is never held whole (except for the rare same-serial comparison, see
   * {@link DocumentDecider#pushStored}).
   *
   * @param actor who asked (stored with the event)
   * @return the outcome; nothing was written unless it was accepted with events
   */
  public DocumentDecider.Outcome pushDocument(
      String tenant,
      String workspace,
      long fencingToken,
      String actor,
      SpooledDocument upload,
      boolean force)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        long newest = lockWorkspaceForPush(c, tenant, workspace);
        // again when a fast append took the event's sequence meanwhile (ADR 0052): read the head
        // again, decide again; the row lock stays held
        for (int attempt = 1; ; attempt++) {
          long head = headSequence(c, tenant, workspace);
          Head current = head(c, tenant, workspace, head);
          SpooledDocument[] stored = {upload};
          DocumentDecider.Outcome outcome =
              DocumentDecider.pushStored(
                  upload.document(),
                  upload.problems(),
                  current.state(),
                  current.document(),
                  force,
                  fencingToken,
                  newest,
                  () -> {
                    WorkspaceState state = current.state();
                    if (current.document() != null) {
                      try {
                        state = loadDocument(c, tenant, workspace, current.document());
                      } catch (SQLException e) {
                        throw new IllegalStateException(
                            "cannot load the current state document: " + e.getMessage(), e);
                      }
                    }
                    return DocumentDecider.sameJson(
                        TerraformStateV4.render(state, state.lineage()), upload.parse());
                  },
                  serial -> {
                    stored[0] = upload.withSerial(serial);
                    return stored[0].document();
                  });
          if (!outcome.accepted() || outcome.events().isEmpty()) {
            c.rollback();
            return outcome;
          }
          Instant now = clock.instant();
          StoredDocument document = stored[0].document();
          StateEvent event = outcome.events().get(0);
          long sequence = head + 1;
          if (!storeDocumentAndEvent(
              c,
              tenant,
              workspace,
              new DocumentContent(stored[0].document(), stored[0], null),
              fencingToken > newest ? fencingToken : null,
              new Version(
                  document.serial(),
                  sequence,
                  now,
                  event.typeName(),
                  null,
                  actor,
                  document.digest()),
              "document-" + UUID.randomUUID() + "#1",
              toJson(event))) {
            lostSequence(tenant, workspace, attempt);
            continue;
          }
          c.commit();
          // no snapshot here: a stored document is cheap to fold to (its event is its reference);
          // the next write that parses it writes the snapshot when due
          WorkspaceKey key = new WorkspaceKey(tenant, workspace);
          folds.remove(key);
          documentHeads.put(key, new DocumentHead(sequence, document));
          return outcome;
        }
      } catch (SQLException | RuntimeException e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /** Gives the fencing token to push under once the body is received (the lock check's result). */
  @FunctionalInterface
  public interface FencingTokenSource {
    /**
     * @throws RuntimeException the lock's refusal (an HTTP problem), as the lock check threw it
     */
    long token() throws SQLException;
  }

  /** Receives a pushed body, writing every byte to {@code content} as it passes. */
  @FunctionalInterface
  public interface ContentReceiver {
    /**
     * @return the document's reference and the validator's problems
     * @throws RuntimeException the body's refusal (an HTTP problem); nothing is stored
     */
    SpooledDocument.Received receive(OutputStream content) throws IOException;

    /**
     * Where the compressed bytes go once they outgrow memory (ADR 0041): the service's upload
     * directory; null for the JVM's temporary directory.
     */
    default Path spoolDirectory() {
      return null;
    }
  }

  /**
   * Pushes a document of known {@code length} while it is received (ADR 0031), with the rules of
   * {@link #pushDocument} without force: on one connection, in one transaction, a second thread
   * streams the bytes {@code receiver} reads into a new {@code state.document_contents} row while
   * the receiver validates them; then the fencing token, the lock of the workspace (which also
   * tells whether it stores these bytes already) with the head sequence in one round trip, the
   * head, the decision, and the {@code state_documents} row that names the content by its SHA-256
   * with the event and version row, as {@link #pushDocument} writes them. Nothing is stored unless
   * the push is accepted with events: a refused body, a refused lock, an invalid document, a serial
   * backwards or a stale token roll the content back; bytes the workspace stores already are not
   * stored twice (the content is rolled back and the existing row referenced). The workspace's row
   * lock is taken only after the body has arrived, so a slow upload holds a connection but blocks
   * no writer.
   *
   * <p>The common case ends in one round trip after the content insert (ADR 0040): decided on the
   * head this process knows (cached, else read before the content insert), written by one {@code
   * state.push_streamed} call sent with the {@code COMMIT} ({@link #pushInOneCall}); when that call
   * finds the head moved, the token stale or the bytes stored already, the full path above decides
   * again.
   *
   * @param length the body's declared length, in bytes
   * @return the outcome; nothing was written unless it was accepted with events
   * @throws RuntimeException the receiver's or the token source's refusal, as they threw it
   */
  public DocumentDecider.Outcome pushStreamed(
      String tenant,
      String workspace,
      long length,
      String actor,
      ContentReceiver receiver,
      FencingTokenSource fencingToken)
      throws SQLException, IOException {
    UUID contentId = UUID.randomUUID();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        // the head the one call decides on (ADR 0040): known in this process, else read now, while
        // the body's first bytes arrive
        Head known = knownHead(c, tenant, workspace);
        SpooledDocument.Received received =
            StreamedContent.insert(
                c,
                tenant,
                workspace,
                contentId,
                length,
                clock.instant(),
                receiver.spoolDirectory(),
                receiver::receive);
        long token = fencingToken.token();
        StoredDocument upload = received.document();
        DocumentDecider.Outcome committed =
            pushInOneCall(
                c, tenant, workspace, actor, upload, received.problems(), token, known, contentId);
        if (committed != null) {
          return committed;
        }
        long newest;
        long head;
        UUID content = contentId;
        // two statements in one round trip: the driver sends both before it waits; the second
        // runs (and takes its snapshot) only once the first holds the workspace's row lock, so it
        // sees every event and document committed before
        try (PreparedStatement ps =
            Sql.prepare(
                c,
                "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
                    + " ON CONFLICT (tenant, workspace)"
                    + " DO UPDATE SET newest_token = state.fencing.newest_token"
                    + " RETURNING newest_token;"
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
                upload.digest())) {
          ps.execute();
          try (ResultSet rs = ps.getResultSet()) {
            rs.next();
            newest = rs.getLong(1);
          }
          if (!ps.getMoreResults()) {
            throw new SQLException("the head sequence was not returned");
          }
          try (ResultSet rs = ps.getResultSet()) {
            rs.next();
            head = rs.getLong(1);
            if (rs.getBoolean(2)) {
              content = null;
            }
          }
        }
        if (content == null) {
          // stored already: drop the new content (and the lock with it), lock again
          c.rollback();
          newest = lockWorkspaceForPush(c, tenant, workspace);
          head = headSequence(c, tenant, workspace);
        }
        // again when a fast append took the event's sequence meanwhile (ADR 0052): read the head
        // again, decide again; the row lock and the received content stay
        for (int attempt = 1; ; attempt++) {
          if (attempt > 1) {
            head = headSequence(c, tenant, workspace);
          }
          Head current = head(c, tenant, workspace, head);
          UUID written = content;
          DocumentDecider.Outcome outcome =
              DocumentDecider.pushStored(
                  upload,
                  received.problems(),
                  current.state(),
                  current.document(),
                  false,
                  token,
                  newest,
                  () -> {
                    try {
                      WorkspaceState state =
                          current.document() != null
                              ? loadDocument(c, tenant, workspace, current.document())
                              : current.state();
                      Object pushed;
                      try (InputStream in =
                          written != null
                              ? new DocumentStream(c, tenant, workspace, upload, written)
                              : new DocumentStream(c, tenant, workspace, upload, false)) {
                        pushed = DOCUMENT_VALUES.readValue(in, Object.class);
                      }
                      return DocumentDecider.sameJson(
                          TerraformStateV4.render(state, state.lineage()), pushed);
                    } catch (SQLException | IOException e) {
                      throw new IllegalStateException(
                          "cannot compare the pushed document with the current state: "
                              + e.getMessage(),
                          e);
                    }
                  },
                  serial -> {
                    throw new IllegalStateException("a streamed push is never forced");
                  });
          if (!outcome.accepted() || outcome.events().isEmpty()) {
            c.rollback();
            return outcome;
          }
          Instant now = clock.instant();
          StateEvent event = outcome.events().get(0);
          long sequence = head + 1;
          if (!storeDocumentAndEvent(
              c,
              tenant,
              workspace,
              new DocumentContent(upload, null, written),
              token > newest ? token : null,
              new Version(
                  upload.serial(), sequence, now, event.typeName(), null, actor, upload.digest()),
              "document-" + UUID.randomUUID() + "#1",
              toJson(event))) {
            lostSequence(tenant, workspace, attempt);
            continue;
          }
          c.commit();
          WorkspaceKey key = new WorkspaceKey(tenant, workspace);
          folds.remove(key);
          documentHeads.put(key, new DocumentHead(sequence, upload));
          return outcome;
        }
      } catch (SQLException | IOException | RuntimeException | Error e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /**
   * The workspace's head as this process knows it (the newer of its cached document head and cached
   * fold), else as read on {@code c} now. May be stale when another instance or writer moved on:
   * {@link #pushInOneCall} checks it under the workspace's row lock.
   */
  private Head knownHead(Connection c, String tenant, String workspace) throws SQLException {
    WorkspaceKey key = new WorkspaceKey(tenant, workspace);
    DocumentHead document = documentHeads.get(key);
    Folded folded = folds.get(key);
    if (document != null && (folded == null || document.sequence() >= folded.sequence())) {
      return documentHead(document.sequence(), document.document());
    }
    if (folded != null) {
      return new Head(folded.sequence(), folded.state(), null);
    }
    return head(c, tenant, workspace, headSequence(c, tenant, workspace));
  }

  /** The SQLSTATE {@code state.push_streamed} refuses with (V12): stale, moved or stored. */
  static final String PUSH_REFUSED = "SC409";

  /**
   * The end of a streamed push in one round trip (ADR 0040), for the common case: a valid document
   * with a higher serial than {@code known}'s head. Decides with {@link DocumentDecider#pushStored}
   * on {@code known} (taking the token as the newest: the call checks it), and when that accepts,
   * sends {@code SAVEPOINT}, {@code state.push_streamed} (V12: under the workspace's row lock, it
   * checks the token against the newest, the head against {@code known}'s and that the workspace
   * does not store these bytes already, then writes the document row, the newer token, the event
   * and the version row) and {@code COMMIT} in one message: committed, the outcome is returned.
   * When the call refuses, PostgreSQL skips the {@code COMMIT}; the transaction is rolled back to
   * the savepoint (the content row stays) and null returned, as for every other case (invalid, same
   * or lower serial, another lineage): the caller takes the full path, which locks, reads the head
   * and decides again.
   *
   * @return the committed outcome, or null: nothing was written beyond the content row, the
   *     transaction is still open
   */
  private DocumentDecider.Outcome pushInOneCall(
      Connection c,
      String tenant,
      String workspace,
      String actor,
      StoredDocument upload,
      List<String> problems,
      long token,
      Head known,
      UUID contentId)
      throws SQLException {
    if (!problems.isEmpty()
        || (!known.state().isEmpty() && upload.serial() <= known.state().serial())) {
      return null; // refused, or compared with the current document: the full path decides
    }
    DocumentDecider.Outcome outcome =
        DocumentDecider.pushStored(
            upload,
            problems,
            known.state(),
            known.document(),
            false,
            token,
            token,
            () -> {
              throw new IllegalStateException("a higher serial is never compared");
            },
            serial -> {
              throw new IllegalStateException("a streamed push is never forced");
            });
    if (!outcome.accepted() || outcome.events().isEmpty()) {
      return null;
    }
    StateEvent event = outcome.events().get(0);
    Timestamp now = Timestamp.from(clock.instant());
    long sequence;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SAVEPOINT push_streamed;"
                + " SELECT state.push_streamed(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?);"
                + " COMMIT")) {
      int i = 0;
      ps.setString(++i, tenant);
      ps.setString(++i, workspace);
      ps.setLong(++i, known.sequence());
      ps.setLong(++i, token);
      ps.setString(++i, upload.digest());
      ps.setString(++i, upload.md5());
      ps.setLong(++i, upload.size());
      ps.setLong(++i, upload.serial());
      ps.setString(++i, upload.lineage());
      ps.setObject(++i, contentId);
      ps.setString(++i, "document-" + UUID.randomUUID() + "#1");
      ps.setString(++i, actor);
      ps.setString(++i, event.typeName());
      ps.setString(++i, toJson(event));
      ps.setTimestamp(++i, now);
      boolean result = ps.execute();
      while (!result && ps.getUpdateCount() != -1) {
        result = ps.getMoreResults();
      }
      if (!result) {
        throw new SQLException("state.push_streamed returned no sequence");
      }
      try (ResultSet rs = ps.getResultSet()) {
        rs.next();
        sequence = rs.getLong(1);
      }
    } catch (SQLException e) {
      if (!PUSH_REFUSED.equals(e.getSQLState())) {
        throw e;
      }
      try (Statement rollback = c.createStatement()) {
        rollback.execute("ROLLBACK TO SAVEPOINT push_streamed");
      }
      return null;
    }
    WorkspaceKey key = new WorkspaceKey(tenant, workspace);
    folds.remove(key);
    documentHeads.put(key, new DocumentHead(sequence, upload));
    return outcome;
  }

  /**
   * What a pull sends: either the stored document the workspace's state still is exactly (no event
   * since its push), to send as it is with its MD5, or else the folded state, to render.
   */
  public record CurrentDocument(StoredDocument stored, WorkspaceState state) {}

  /**
   * The workspace's current state for a pull: the stored document when the head event pushed it
   * (the document is not read), else the fold as {@link #currentState} gives it.
   */
  public CurrentDocument currentDocument(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Head head = head(c, tenant, workspace, headSequence(c, tenant, workspace));
      return head.document() != null
          ? new CurrentDocument(head.document(), null)
          : new CurrentDocument(null, head.state());
    }
  }

  /**
   * What a pull sends, as {@link #currentDocumentForPull} found it: {@code current}, and when it is
   * a stored document fetched along with the head, its bytes ({@code content}: held in memory as
   * they were stored — compressed by the service, ADR 0041 — and handed out decompressed slice by
   * slice, no connection behind them; else null: read them with {@link #openDocumentSlices}).
   */
  public record Pull(CurrentDocument current, DocumentSlices content) {}

  /**
   * {@link #currentDocument} for a pull, in one round trip in the common case (ADR 0031): when this
   * process saw the workspace's head be a stored document of at most {@link #WHOLE_DOCUMENT} bytes
   * (what one slice query returns anyway, ADR 0036), one statement reads the head sequence and, if
   * it is still that document's, the document's stored bytes whole. Otherwise (not cached, moved
   * on, larger) as {@link #currentDocument}, without the bytes.
   */
  public Pull currentDocumentForPull(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      DocumentHead cached = documentHeads.get(new WorkspaceKey(tenant, workspace));
      long sequence;
      if (cached != null && cached.document().size() <= WHOLE_DOCUMENT) {
        try (PreparedStatement ps =
                Sql.prepare(
                    c,
                    "SELECT h.sequence, b.plain, b.zstd"
                        + " FROM (SELECT coalesce(max(sequence), 0) AS sequence"
                        + " FROM state.state_events WHERE tenant = ? AND workspace = ?) h"
                        + " LEFT JOIN LATERAL (SELECT coalesce(d.content, x.content, x.packed)"
                        + " AS plain, x.zstd FROM state.state_documents d"
                        + " LEFT JOIN state.document_contents x ON x.tenant = d.tenant"
                        + " AND x.workspace = d.workspace AND x.content_id = d.content_id"
                        + " WHERE d.tenant = ? AND d.workspace = ? AND d.digest = ?) b"
                        + " ON h.sequence = ?",
                    tenant,
                    workspace,
                    tenant,
                    workspace,
                    cached.document().digest(),
                    cached.sequence());
            ResultSet rs = ps.executeQuery()) {
          rs.next();
          sequence = rs.getLong(1);
          byte[] plain = rs.getBytes(2);
          byte[] zstd = rs.getBytes(3);
          if (sequence == cached.sequence()
              && (zstd != null || (plain != null && plain.length == cached.document().size()))) {
            return new Pull(
                new CurrentDocument(cached.document(), null),
                DocumentStream.held(cached.document(), plain, zstd));
          }
        }
      } else {
        sequence = headSequence(c, tenant, workspace);
      }
      Head head = head(c, tenant, workspace, sequence);
      return new Pull(
          head.document() != null
              ? new CurrentDocument(head.document(), null)
              : new CurrentDocument(null, head.state()),
          null);
    }
  }

  /**
   * The bytes of a stored document of the workspace, read in slices of {@value #DOCUMENT_SLICE}
   * bytes on a connection of its own that closing the stream returns. Documents never change, so
   * the slices need no common snapshot.
   */
  public InputStream openDocument(String tenant, String workspace, StoredDocument document)
      throws SQLException {
    Connection c = dataSource.getConnection();
    return new DocumentStream(c, tenant, workspace, document, true);
  }

  /**
   * A stored document's bytes as whole slices, for a writer that takes byte arrays as they come (an
   * HTTP response): each {@link DocumentSlices#nextSlice} is one query's result, handed over
   * without a further copy. Not thread-safe: one reader at a time (calls may come from different
   * threads one after the other); closing it returns its connection.
   */
  public interface DocumentSlices extends AutoCloseable {
    /** The next slice (see {@link #DOCUMENT_SLICE}), or null after the last one. */
    byte[] nextSlice() throws IOException;

    @Override
    void close() throws IOException;
  }

  /**
   * The bytes of a stored document of the workspace as {@link DocumentSlices}, on a connection of
   * its own that closing them returns (as {@link #openDocument}).
   */
  public DocumentSlices openDocumentSlices(String tenant, String workspace, StoredDocument document)
      throws SQLException {
    Connection c = dataSource.getConnection();
    return new DocumentStream(c, tenant, workspace, document, true);
  }

  /**
   * How many bytes one query reads of a large stored document: of its compressed bytes when the
   * service compressed it (ADR 0041), else of its bytes (then up to twice that when the rest of the
   * document fits).
   */
  static final int DOCUMENT_SLICE = 4 << 20;

  /**
   * How many decompressed bytes a read of a document compressed by the service hands out at a time
   * (ADR 0041): what one slice of the response holds. Below half a G1 region of the service's heap,
   * so no slice is a humongous object; the compressed bytes are all a read holds besides.
   */
  static final int DECOMPRESSED_SLICE = 256 << 10;

  /**
   * A stored document of at most this many bytes is read in one statement (ADR 0036) and its stored
   * bytes held while it is sent: compressed by the service (ADR 0041), or — rows written before it
   * — compressed by PostgreSQL ({@code packed}; each slice of such a value decompresses all before
   * it) or not at all.
   */
  static final long WHOLE_DOCUMENT = 16L << 20;

  /**
   * A workspace's state at its head {@code sequence}: {@code document} set when the head event
   * pushed that stored document (then {@code state} holds only its serial and lineage), else the
   * full fold.
   */
  private record Head(long sequence, WorkspaceState state, StoredDocument document) {}

  private Head head(Connection c, String tenant, String workspace, long sequence)
      throws SQLException {
    if (sequence == 0) {
      return new Head(0, WorkspaceState.EMPTY, null); // no events: nothing to read
    }
    WorkspaceKey key = new WorkspaceKey(tenant, workspace);
    DocumentHead cached = documentHeads.get(key);
    if (cached != null && cached.sequence() == sequence) {
      return documentHead(sequence, cached.document());
    }
    Folded folded = folds.get(key);
    if (folded == null || folded.sequence() != sequence) {
      folded = null;
      StoredDocument stored = null;
      if (sequence > 0) {
        // the newest event at or below the head that changed the state: events that change
        // nothing (a run opening's fencing_advanced, a forced unlock) keep a pushed document the
        // state, without loading it
        try (PreparedStatement ps =
                Sql.prepare(
                    c,
                    "SELECT type = 'state_pushed' AND jsonb_typeof(payload -> 'stored') = 'object',"
                        + " payload::text FROM state.state_events WHERE tenant = ?"
                        + " AND workspace = ? AND sequence <= ?"
                        + " AND type NOT IN ('fencing_advanced', 'lock_force_unlocked')"
                        + " ORDER BY sequence DESC LIMIT 1",
                    tenant,
                    workspace,
                    sequence);
            ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            stored =
                ((StateEvent.StateReplaced) fromJson("state_pushed", rs.getString(2))).stored();
          }
        }
      }
      if (stored != null) {
        documentHeads.put(key, new DocumentHead(sequence, stored));
        return documentHead(sequence, stored);
      }
      folded = fold(c, tenant, workspace, sequence);
      remember(tenant, workspace, folded);
    }
    return new Head(sequence, folded.state(), null);
  }

  private static Head documentHead(long sequence, StoredDocument document) {
    return new Head(
        sequence, new WorkspaceState(document.serial(), document.lineage(), Map.of()), document);
  }

  /**
   * {@link #lockWorkspace} in one round trip, for a push: creates the workspace's fencing row when
   * missing and locks it (a no-op update takes the row lock as {@code FOR UPDATE} does, waiting for
   * a concurrent writer), returning the newest token.
   */
  private static long lockWorkspaceForPush(Connection c, String tenant, String workspace)
      throws SQLException {
    return Sql.queryLong(
        c,
        "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
            + " ON CONFLICT (tenant, workspace)"
            + " DO UPDATE SET newest_token = state.fencing.newest_token"
            + " RETURNING newest_token",
        tenant,
        workspace);
  }

  /**
   * Where an accepted push's bytes are: in {@code upload} (a spooled file, streamed into {@code
   * state_documents.content}), in the {@code state.document_contents} row {@code contentId}
   * (written while received, ADR 0031), or — both null — in the workspace's {@code state_documents}
   * row of the same digest already.
   */
  private record DocumentContent(StoredDocument document, SpooledDocument upload, UUID contentId) {}

  /**
   * The writes of an accepted push in one statement (one round trip; the caller holds the
   * workspace's row lock and commits): the document's row in {@code state.state_documents} unless
   * the workspace has that document already — with the upload's bytes (streamed from the file: the
   * driver sends a stream of known length without buffering it) or naming the content row written
   * while they were received; none when {@code content} has neither — the newest fencing token
   * advanced to {@code advanceTo} when not null, the {@code state_pushed} event at {@code
   * version.sequence()} and its version row. The event claims its sequence ({@code ON CONFLICT DO
   * NOTHING}) and every other write depends on it (ADR 0052).
   *
   * @return false, with nothing written, when the sequence was taken meanwhile by a fast append:
   *     the caller reads the head again and decides again
   */
  private static boolean storeDocumentAndEvent(
      Connection c,
      String tenant,
      String workspace,
      DocumentContent content,
      Long advanceTo,
      Version version,
      String eventId,
      String payload)
      throws SQLException {
    StoredDocument d = content.document();
    Timestamp now = Timestamp.from(version.time());
    boolean insert = content.upload() != null || content.contentId() != null;
    String sql =
        "WITH event AS ("
            + " INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
            + " action_id, actor, type, address, payload, created_at)"
            + " VALUES (?, ?, ?, ?, NULL, NULL, ?, ?, NULL, ?::jsonb, ?)"
            + " ON CONFLICT DO NOTHING RETURNING sequence),"
            + (insert
                ? " document AS ("
                    + " INSERT INTO state.state_documents (tenant, workspace, digest, md5, size,"
                    + " serial, lineage, "
                    + (content.upload() != null ? "content" : "content_id")
                    + ", created_at) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? FROM event"
                    + " ON CONFLICT (tenant, workspace, digest) DO NOTHING),"
                : "")
            + (advanceTo == null
                ? ""
                : " fencing AS (UPDATE state.fencing SET newest_token = ? WHERE tenant = ?"
                    + " AND workspace = ? AND newest_token < ? AND EXISTS (SELECT FROM event)),")
            + " version AS (INSERT INTO state.state_versions (tenant, workspace, sequence, serial,"
            + " type, run_id, actor, digest, created_at)"
            + " SELECT ?, ?, ?, ?, ?, NULL, ?, ?, ? FROM event"
            + " ON CONFLICT (tenant, workspace, sequence) DO NOTHING)"
            + " SELECT count(*) FROM event";
    try (InputStream in =
            content.upload() != null ? content.upload().open() : InputStream.nullInputStream();
        PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 0;
      ps.setString(++i, tenant);
      ps.setString(++i, workspace);
      ps.setLong(++i, version.sequence());
      ps.setString(++i, eventId);
      ps.setString(++i, version.actor());
      ps.setString(++i, version.type());
      ps.setString(++i, payload);
      ps.setTimestamp(++i, now);
      if (insert) {
        ps.setString(++i, tenant);
        ps.setString(++i, workspace);
        ps.setString(++i, d.digest());
        ps.setString(++i, d.md5());
        ps.setLong(++i, d.size());
        ps.setLong(++i, d.serial());
        ps.setString(++i, d.lineage());
        if (content.upload() != null) {
          ps.setBinaryStream(++i, in, d.size());
        } else {
          ps.setObject(++i, content.contentId());
        }
        ps.setTimestamp(++i, now);
      }
      if (advanceTo != null) {
        ps.setLong(++i, advanceTo);
        ps.setString(++i, tenant);
        ps.setString(++i, workspace);
        ps.setLong(++i, advanceTo);
      }
      ps.setString(++i, tenant);
      ps.setString(++i, workspace);
      ps.setLong(++i, version.sequence());
      ps.setLong(++i, version.serial());
      ps.setString(++i, version.type());
      ps.setString(++i, version.actor());
      ps.setString(++i, version.digest());
      ps.setTimestamp(++i, now);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) == 1;
      }
    } catch (IOException e) {
      throw new SQLException("cannot read the uploaded document: " + e.getMessage(), e);
    }
  }

  /** Reads plain JSON values; decimals keep their precision. */
  private static final ObjectMapper DOCUMENT_VALUES =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * A stored document parsed into the state it makes (the one place a document is parsed whole).
   */
  private static WorkspaceState loadDocument(
      Connection c, String tenant, String workspace, StoredDocument document) throws SQLException {
    try (InputStream in = new DocumentStream(c, tenant, workspace, document, false)) {
      return TerraformStateV4.parse(DOCUMENT_VALUES.readValue(in, JSON_OBJECT));
    } catch (IOException e) {
      throw new IllegalStateException(
          "stored state document " + document.digest() + " unreadable: " + e.getMessage(), e);
    }
  }

  /**
   * A stored document's bytes, fetched slice by slice: by digest from {@code state_documents}
   * (whose bytes are in its {@code content} or, for a document written while received, in the
   * {@code document_contents} row it names, ADR 0031), or from a {@code document_contents} row by
   * its id (a push's own content, before its {@code state_documents} row exists). A content row
   * holds its bytes compressed by the service ({@code zstd}, ADR 0041), or — written before —
   * compressed by PostgreSQL ({@code packed}) or not at all ({@code content}). A document of at
   * most {@link #WHOLE_DOCUMENT} bytes comes in one statement; a larger one in slices of {@link
   * #DOCUMENT_SLICE}: of its compressed bytes, decompressed as they are handed out, or of its
   * uncompressed ones.
   */
  private static final class DocumentStream extends PieceStream implements DocumentSlices {
    private final Connection c;
    private final String tenant;
    private final String workspace;
    private final StoredDocument document;
    private final UUID contentId;
    private final boolean closeConnection;
    private long fetched;

    /** The document's decompressed bytes, once known to be compressed by the service. */
    private InputStream unpacked;

    /** Whether the document's form was asked for (then {@link #unpacked} is set if zstd). */
    private boolean formKnown;

    /** A held document's compressed bytes, until {@link #unpacked} reads them. */
    private byte[] compressed;

    /**
     * A document whose stored bytes are in memory already: {@code plain} as PostgreSQL stored them,
     * or {@code zstd} compressed by the service (exactly one set). No connection behind it.
     */
    static DocumentStream held(StoredDocument document, byte[] plain, byte[] zstd) {
      DocumentStream held = new DocumentStream(null, null, null, document, null, false);
      held.formKnown = true;
      if (zstd != null) {
        held.compressed = zstd;
      } else {
        held.piece = plain;
        held.fetched = plain.length;
      }
      return held;
    }

    DocumentStream(
        Connection c,
        String tenant,
        String workspace,
        StoredDocument document,
        boolean closeConnection) {
      this(c, tenant, workspace, document, null, closeConnection);
    }

    /** The content row {@code contentId} (of {@code document}'s size); leaves {@code c} open. */
    DocumentStream(
        Connection c, String tenant, String workspace, StoredDocument document, UUID contentId) {
      this(c, tenant, workspace, document, contentId, false);
    }

    private DocumentStream(
        Connection c,
        String tenant,
        String workspace,
        StoredDocument document,
        UUID contentId,
        boolean closeConnection) {
      this.c = c;
      this.tenant = tenant;
      this.workspace = workspace;
      this.document = document;
      this.contentId = contentId;
      this.closeConnection = closeConnection;
    }

    /**
     * One row: {@code columns} (which may name {@code d}, the document row — null columns when
     * reading by content id — and {@code x}, its content row) with their {@code parameters}.
     */
    private PreparedStatement query(String columns, Object... parameters) throws SQLException {
      List<Object> all = new ArrayList<>(List.of(parameters));
      all.add(tenant);
      all.add(workspace);
      if (contentId != null) {
        all.add(contentId.toString());
        return Sql.prepare(
            c,
            "SELECT "
                + columns
                + " FROM (SELECT NULL::bytea AS content) d, state.document_contents x"
                + " WHERE x.tenant = ? AND x.workspace = ? AND x.content_id = ?::uuid",
            all.toArray());
      }
      all.add(document.digest());
      return Sql.prepare(
          c,
          "SELECT "
              + columns
              + " FROM state.state_documents d LEFT JOIN state.document_contents x"
              + " ON x.tenant = d.tenant AND x.workspace = d.workspace"
              + " AND x.content_id = d.content_id"
              + " WHERE d.tenant = ? AND d.workspace = ? AND d.digest = ?",
          all.toArray());
    }

    private ResultSet row(PreparedStatement ps) throws SQLException, IOException {
      ResultSet rs = ps.executeQuery();
      if (!rs.next()) {
        rs.close();
        throw new IOException("stored state document " + document.digest() + " is missing");
      }
      return rs;
    }

    /**
     * The next slice: of the decompressed bytes ({@link #DECOMPRESSED_SLICE} at most) when the
     * service compressed the document; else the whole document in one statement (at most {@link
     * #WHOLE_DOCUMENT} bytes) or the next slice of a large one. The first call finds out the form.
     */
    private byte[] next() throws SQLException, IOException {
      if (compressed != null) {
        unpacked = CompressedContent.decompressing(new ByteArrayInputStream(compressed));
        compressed = null;
      }
      if (unpacked != null) {
        return unpacked.readNBytes((int) Math.min(DECOMPRESSED_SLICE, document.size() - fetched));
      }
      if (!formKnown && document.size() <= WHOLE_DOCUMENT) {
        formKnown = true;
        // the whole value: no substring (which copies it once more after decompressing it)
        try (PreparedStatement ps = query("coalesce(d.content, x.content, x.packed), x.zstd");
            ResultSet rs = row(ps)) {
          byte[] zstd = rs.getBytes(2);
          if (zstd == null) {
            return rs.getBytes(1);
          }
          unpacked = CompressedContent.decompressing(new ByteArrayInputStream(zstd));
        }
        return next();
      }
      return nextLargeSlice();
    }

    /**
     * Of a large document: the next uncompressed slice, or — the first time — whether it is stored
     * compressed by the service (then its first compressed slice comes with the answer).
     */
    private byte[] nextLargeSlice() throws SQLException, IOException {
      if (!formKnown) {
        formKnown = true;
        long compressedLength;
        byte[] first;
        try (PreparedStatement ps =
                query("octet_length(x.zstd), substring(x.zstd FROM 1 FOR ?)", DOCUMENT_SLICE);
            ResultSet rs = row(ps)) {
          compressedLength = rs.getLong(1);
          first = rs.wasNull() ? null : rs.getBytes(2);
        }
        if (first != null) {
          unpacked = CompressedContent.decompressing(new CompressedSlices(first, compressedLength));
          return next();
        }
      }
      // stored uncompressed, or compressed by PostgreSQL: each branch takes its slice of the stored
      // value itself: out of line and uncompressed, only the slice's chunks are read; compressed
      // (a streamed document of at most 16 MiB before ADR 0041), only its prefix up to the slice's
      // end is decompressed. A short rest comes with the slice before it: one query less.
      long from = fetched + 1;
      int length =
          document.size() - fetched <= 2L * DOCUMENT_SLICE
              ? (int) (document.size() - fetched)
              : DOCUMENT_SLICE;
      try (PreparedStatement ps =
              query(
                  "coalesce(substring(d.content FROM ?::int FOR ?),"
                      + " substring(x.content FROM ?::int FOR ?),"
                      + " substring(x.packed FROM ?::int FOR ?))",
                  from,
                  length,
                  from,
                  length,
                  from,
                  length);
          ResultSet rs = row(ps)) {
        return rs.getBytes(1);
      }
    }

    /** A large document's compressed bytes: the first slice as read, the rest by query. */
    private final class CompressedSlices extends PieceStream {
      private final long length;
      private long read;

      CompressedSlices(byte[] first, long length) {
        piece = first;
        this.read = first.length;
        this.length = length;
      }

      @Override
      protected boolean exhausted() {
        return read >= length;
      }

      @Override
      protected byte[] fetch() throws IOException, SQLException {
        try (PreparedStatement ps =
                query("substring(x.zstd FROM ?::int FOR ?)", read + 1, DOCUMENT_SLICE);
            ResultSet rs = row(ps)) {
          return rs.getBytes(1);
        }
      }

      @Override
      protected String what() {
        return DocumentStream.this.what();
      }

      @Override
      protected void took(byte[] piece) {
        read += piece.length;
      }
    }

    @Override
    protected boolean exhausted() {
      return fetched >= document.size();
    }

    @Override
    protected byte[] fetch() throws IOException, SQLException {
      return next();
    }

    @Override
    protected String what() {
      return "stored state document " + document.digest();
    }

    @Override
    protected void took(byte[] piece) throws IOException {
      fetched += piece.length;
      if (fetched > document.size()
          || (fetched == document.size() && unpacked != null && unpacked.read() != -1)) {
        throw new IOException(what() + " is longer than its size");
      }
    }

    @Override
    public byte[] nextSlice() throws IOException {
      if (!more()) {
        return null;
      }
      byte[] rest = pieceAt == 0 ? piece : Arrays.copyOfRange(piece, pieceAt, piece.length);
      pieceAt = piece.length;
      return rest;
    }

    @Override
    public void close() throws IOException {
      piece = new byte[0];
      try {
        if (unpacked != null) {
          unpacked.close();
        }
      } finally {
        if (closeConnection) {
          try {
            c.close();
          } catch (SQLException e) {
            throw new IOException(e);
          }
        }
      }
    }
  }

  /** The workspace's history, oldest first (empty for an unknown workspace). */
  public List<StoredEvent> history(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return events(c, tenant, workspace, 0, Long.MAX_VALUE);
    }
  }

  /**
   * One action's recorded outcome (the first per action id, {@code state.action_outcomes}).
   *
   * @param outcome {@code succeeded}, {@code failed}, {@code interrupted}, {@code canceled} or
   *     {@code rejected}
   * @param serial the state's serial after it was recorded
   */
  public record RecordedOutcome(String actionId, String address, String outcome, long serial) {}

  /**
   * The outcomes recorded for the actions of {@code runId} in the workspace, in the order they were
   * recorded (docs/adr/0035: a restarted planner learns which of a run's dispatched actions
   * finished). One statement; empty for an unknown run.
   */
  public List<RecordedOutcome> recordedOutcomes(String tenant, String workspace, String runId)
      throws SQLException {
    List<RecordedOutcome> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT action_id, recorded_envelope->'data'->>'address',"
                    + " coalesce(recorded_envelope->'data'->>'outcome', outcome), serial"
                    + " FROM state.action_outcomes"
                    + " WHERE tenant = ? AND workspace = ? AND run_id = ?"
                    + " ORDER BY created_at, action_id",
                tenant,
                workspace,
                runId);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new RecordedOutcome(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
      }
    }
    return out;
  }

  /**
   * The workspace's current state: the fold of its events up to the head, through the cache or the
   * newest snapshot plus the events after it (as {@link #record} folds).
   */
  public WorkspaceState currentState(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      // Every query below is bounded by this head, so the statements need no common snapshot:
      // everything up to the head was committed before the head became visible.
      Folded current = fold(c, tenant, workspace, headSequence(c, tenant, workspace));
      remember(tenant, workspace, current);
      return current.state();
    }
  }

  /**
   * The fold of the workspace's events 1..{@code upTo}: the cached one when it is exactly that; the
   * cached one plus the events after it when it is at most {@value #SNAPSHOT_INTERVAL} events
   * behind (a run opening's own {@code fencing_advanced}, say: one event, not a snapshot and up to
   * a hundred); else the newest snapshot at or below {@code upTo} (of a format this code reads)
   * plus the events after it.
   */
  private Folded fold(Connection c, String tenant, String workspace, long upTo)
      throws SQLException {
    Folded cached = folds.get(new WorkspaceKey(tenant, workspace));
    if (cached != null && cached.sequence() == upTo) {
      return cached;
    }
    long from = 0;
    long snapshotSequence = 0;
    WorkspaceState state = WorkspaceState.EMPTY;
    if (cached != null
        && cached.sequence() < upTo
        && upTo - cached.sequence() <= SNAPSHOT_INTERVAL) {
      // events never change: the cached fold is the state at its sequence
      from = cached.sequence();
      snapshotSequence = cached.snapshotSequence();
      state = cached.state();
    } else {
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT sequence, state::text FROM state.state_snapshots"
                      + " WHERE tenant = ? AND workspace = ? AND sequence <= ?"
                      + " AND state ->> 'format' IN (?, ?) ORDER BY sequence DESC LIMIT 1",
                  tenant,
                  workspace,
                  upTo,
                  Integer.toString(StateSnapshot.FORMAT),
                  Integer.toString(StateSnapshot.FORMAT_BEFORE_OUTPUTS));
          ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          from = rs.getLong(1);
          snapshotSequence = from;
          state = StateSnapshot.fromSnapshot(readSnapshot(rs.getString(2)));
        }
      }
    }
    // A stored document (ADR 0022) is loaded only when the fold needs what it holds: when an
    // event follows it, or at the end. A later replacement makes loading it unnecessary.
    StoredDocument pending = null;
    for (StoredEvent event : events(c, tenant, workspace, from, upTo)) {
      if (event.event() instanceof StateEvent.StateReplaced r && r.stored() != null) {
        pending = r.stored();
        continue;
      }
      if (pending != null && !event.event().changesState()) {
        continue; // a run opening after a push, say: no reason to load the document
      }
      if (pending != null) {
        state = loadDocument(c, tenant, workspace, pending);
        pending = null;
      }
      state = state.apply(event.event());
    }
    if (pending != null) {
      state = loadDocument(c, tenant, workspace, pending);
    }
    return new Folded(upTo, state, snapshotSequence);
  }

  /**
   * Caches {@code fold} unless the cache already holds a newer one of the workspace, or one of the
   * same head that knows the newest fencing token while {@code fold} does not.
   */
  private void remember(String tenant, String workspace, Folded fold) {
    if (fold.sequence() == 0) {
      return; // nothing written yet: nothing worth keeping
    }
    folds.merge(
        new WorkspaceKey(tenant, workspace),
        fold,
        (old, fresh) ->
            fresh.sequence() > old.sequence()
                    || (fresh.sequence() == old.sequence()
                        && (fresh.newest() != EventAppend.UNKNOWN_TOKEN
                            || old.newest() == EventAppend.UNKNOWN_TOKEN))
                ? fresh
                : old);
  }

  /**
   * The sequence of the workspace's newest event and its newest fencing token (0 and 0 when it has
   * none), read in one snapshot: the token is the newest at that head (ADR 0052).
   */
  private static long[] headAndNewestToken(Connection c, String tenant, String workspace)
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
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  /**
   * Advances the workspace's newest fencing token to {@code token} with {@code
   * state.advance_fencing} (V14): never backwards, and an advance appends its {@code
   * fencing_advanced} event.
   *
   * @return {advanced (1 or 0), the newest token after the call, the head at which {@code token} is
   *     the newest (when advanced)}
   */
  private long[] advanceFencing(
      Connection c, String tenant, String workspace, long token, String runId) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT advanced, newest, head FROM state.advance_fencing(?, ?, ?, ?, NULL, ?)",
                tenant,
                workspace,
                token,
                runId,
                clock.instant());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new long[] {rs.getBoolean(1) ? 1 : 0, rs.getLong(2), rs.getLong(3)};
    }
  }

  /** The sequence of the workspace's newest event, 0 when it has none. */
  private static long headSequence(Connection c, String tenant, String workspace)
      throws SQLException {
    return Sql.queryLong(
        c,
        "SELECT coalesce(max(sequence), 0) FROM state.state_events"
            + " WHERE tenant = ? AND workspace = ?",
        tenant,
        workspace);
  }

  private static void writeSnapshot(
      Connection c,
      String tenant,
      String workspace,
      long sequence,
      WorkspaceState state,
      Instant now)
      throws SQLException {
    String json;
    try {
      json = JSON.writeValueAsString(StateSnapshot.toSnapshot(state));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("state snapshot not serializable", e);
    }
    // A snapshot at this sequence may exist already (say, in a format only a newer version
    // reads): keep it; every snapshot of one sequence holds the same state.
    Sql.update(
        c,
        "INSERT INTO state.state_snapshots (tenant, workspace, sequence, state, created_at)"
            + " VALUES (?, ?, ?, ?::jsonb, ?) ON CONFLICT (tenant, workspace, sequence) DO NOTHING",
        tenant,
        workspace,
        sequence,
        json,
        now);
  }

  /** {@code state} in the snapshot form {@code state.state_snapshots} stores. */
  private static String snapshotJson(WorkspaceState state) {
    try {
      return JSON.writeValueAsString(StateSnapshot.toSnapshot(state));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("state snapshot not serializable", e);
    }
  }

  private static Map<String, Object> readSnapshot(String json) {
    try {
      return JSON.readValue(json, JSON_OBJECT);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored state snapshot unreadable", e);
    }
  }

  private static long lockWorkspace(Connection c, String tenant, String workspace)
      throws SQLException {
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
      return Optional.of(EventCodec.decode(rs.getString(1).getBytes(StandardCharsets.UTF_8)));
    }
  }

  /**
   * Appends {@code events} after {@code current} (whose sequence is the head read under the
   * workspace lock), adds a snapshot when due, and returns the fold after them.
   */
  private static Folded appendAll(
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
      if (makesVersion(before, state, event)) {
        indexVersion(
            c,
            tenant,
            workspace,
            new Version(
                state.serial(),
                sequence,
                now,
                event.typeName(),
                origin.runId(),
                origin.actor(),
                digest(TerraformStateV4.render(state, state.lineage()))));
      }
    }
    long snapshotSequence = current.snapshotSequence();
    if (sequence - snapshotSequence >= SNAPSHOT_INTERVAL) {
      writeSnapshot(c, tenant, workspace, sequence, state, now);
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
  private static List<StoredEvent> events(
      Connection c, String tenant, String workspace, long after, long upTo) throws SQLException {
    List<StoredEvent> events = new ArrayList<>();
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
