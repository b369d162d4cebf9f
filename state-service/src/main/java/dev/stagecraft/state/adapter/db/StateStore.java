package dev.stagecraft.state.adapter.db;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.DocumentPushes;
import dev.stagecraft.state.application.LockedChanges;
import dev.stagecraft.state.application.OpeningLog;
import dev.stagecraft.state.application.PushLog;
import dev.stagecraft.state.application.ResultLog;
import dev.stagecraft.state.application.RunOpening;
import dev.stagecraft.state.application.RunOpenings;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.WorkspaceState;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
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
 * <p>The store composes the write path (ADR 0068): {@link EventLog} appends, {@link FencingLedger}
 * alone advances fencing tokens, {@link Folds} folds and caches, {@link VersionIndex} lists
 * versions, {@link DocumentStore} and {@link DocumentReader} write and read stored documents. The
 * use cases that ask a decider of {@code history} before they append live in the application layer
 * ({@code application.StateHistory}), which reaches the store through three ports: {@link
 * #resultLog} (recording action results), {@link #lockedChanges} (the writes under the workspace's
 * row lock), {@link #pushLog} (document pushes) and {@link #openingLog} (a run's opening); a bare
 * fencing advance ({@link #advanceFencing}) is still the store's.
 *
 * <p>Concurrency: every write to a workspace first takes its {@code state.fencing} row with {@code
 * SELECT ... FOR UPDATE}, so writes to one workspace are serialized across threads and service
 * instances by the database — except the common case of recording an action result (one event, ADR
 * 0027, {@link StoreResultLog}), which takes no row lock and appends at the head it decided on, the
 * primary key refusing a concurrent writer of the same sequence ({@link EventAppend}); reads take
 * no locks (they see the last committed history).
 *
 * <p>Folding: a workspace's state is the fold of its events 1..head. It starts from the newest
 * {@code state.state_snapshots} row at or below the head and folds only the events after it; a
 * write adds a snapshot in the transaction of its events once {@value Folds#SNAPSHOT_INTERVAL}
 * events accumulated since the last one. On top of that an in-process cache keeps the last fold per
 * workspace, tagged with its head sequence; it is used only when that sequence equals the head read
 * in the current transaction (for a write: after taking the lock), so a write by another instance
 * in between just makes it miss, never serve stale state. Events are never changed and sequences
 * never reused, so "the fold of 1..n" means the same thing whoever computed it and whenever. The
 * cache is thread-safe and keeps at most {@value Folds#CACHED_WORKSPACES} workspaces (least
 * recently used leave first).
 *
 * <p>Stored documents (ADR 0022): a push stores the document's bytes once in {@code
 * state.state_documents} and appends a {@code state_pushed} event that references them ({@link
 * #pushDocument}). A fold parses such a document only when it needs the state (an event follows it,
 * or the fold is the result); {@link #currentDocument} answers "the state is exactly this stored
 * document" from the head event alone, so a pull streams the bytes ({@link #openDocument}).
 *
 * <p>Idempotency: recording an action result is keyed by the envelope id <em>and</em> by (run id,
 * action id) via {@code state.action_outcomes}; a second delivery appends nothing and is answered
 * with the very same {@code state.recorded} envelope as the first.
 */
@Singleton
public final class StateStore {
  public static final String SOURCE = "/stagecraft/state-service";

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

  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds = new Folds();
  private final EventLog log;
  private final VersionIndex versionIndex;
  private final DocumentStore documents;
  private final DocumentReader reader;
  private final RunOpener opener;
  private final LockedWriter locked;
  private final DocumentPushes pushes;
  private final RunOpenings openings;

  /** See {@link DocumentReader#DOCUMENT_SLICE}. */
  static final int DOCUMENT_SLICE = DocumentReader.DOCUMENT_SLICE;

  /** See {@link DocumentReader#DECOMPRESSED_SLICE}. */
  static final int DECOMPRESSED_SLICE = DocumentReader.DECOMPRESSED_SLICE;

  /** See {@link DocumentReader#WHOLE_DOCUMENT}. */
  static final long WHOLE_DOCUMENT = DocumentReader.WHOLE_DOCUMENT;

  public StateStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.log =
        new EventLog(clock, new EventCodec(SOURCE, clock, () -> UUID.randomUUID().toString()));
    this.versionIndex = new VersionIndex(dataSource, folds);
    this.documents = new DocumentStore(dataSource, clock, folds);
    this.reader = new DocumentReader(dataSource, folds);
    this.opener = new RunOpener(dataSource, clock, folds);
    this.locked = new LockedWriter(dataSource, clock, folds);
    this.pushes = new DocumentPushes(documents);
    this.openings = new RunOpenings(opener);
  }

  /**
   * The application's {@link ResultLog} over this store: it records action results that {@code
   * gate} admits ({@link OutcomeGate#TRUSTED}: every one), in one round trip ({@link
   * StoreResultLog}, ADR 0021).
   */
  public ResultLog resultLog(OutcomeGate gate) {
    return new StoreResultLog(dataSource, folds, log, gate);
  }

  /** The application's {@link LockedChanges} over this store ({@link LockedWriter}). */
  public LockedChanges lockedChanges() {
    return locked;
  }

  /** The application's {@link PushLog} over this store ({@link DocumentStore}). */
  public PushLog pushLog() {
    return documents;
  }

  /** The application's {@link OpeningLog} over this store ({@link RunOpener}). */
  public OpeningLog openingLog() {
    return opener;
  }

  /**
   * Makes {@code token} the newest fencing token of the workspace unless a newer one was seen.
   *
   * @return the newest token before the call when it was newer than {@code token}, else empty
   */
  public Optional<Long> advanceFencing(String tenant, String workspace, long token)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      FencingLedger.Advance advance =
          FencingLedger.advanceFencing(c, tenant, workspace, token, null, clock.instant());
      return advance.advanced() ? Optional.empty() : Optional.of(advance.newest());
    }
  }

  /**
   * Opens a run that was just granted the workspace lock with {@code token}: the application's
   * opening use case over this store ({@link RunOpenings#open}, which the service's controller
   * calls through {@code StateHistory}); for tests, tools and benchmarks.
   */
  public RunOpening openRun(
      String tenant, String workspace, long token, String runId, String credentialHash)
      throws SQLException {
    return openings.open(tenant, workspace, token, runId, credentialHash);
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

  /** The newest fencing token seen for the workspace (0 when none). */
  public long newestFencingToken(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return FencingLedger.newest(c, tenant, workspace);
    }
  }

  /**
   * What a pull sends: either the stored document the workspace's state still is exactly (no event
   * since its push), to send as it is with its MD5, or else the folded state, to render.
   */
  public record CurrentDocument(StoredDocument stored, WorkspaceState state) {}

  /**
   * What a pull sends, as {@link #currentDocumentForPull} found it: {@code current}, and when it is
   * a stored document fetched along with the head, its bytes ({@code content}: held in memory as
   * they were stored — compressed by the service, ADR 0041 — and handed out decompressed slice by
   * slice, no connection behind them; else null: read them with {@link #openDocumentSlices}).
   */
  public record Pull(CurrentDocument current, DocumentSlices content) {}

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

  /** The workspace's history, oldest first (empty for an unknown workspace). */
  public List<StoredEvent> history(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return EventLog.events(c, tenant, workspace, 0, Long.MAX_VALUE);
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
   * newest snapshot plus the events after it (as a recording folds).
   */
  public WorkspaceState currentState(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      // Every query below is bounded by this head, so the statements need no common snapshot:
      // everything up to the head was committed before the head became visible.
      Folded current =
          folds.fold(c, tenant, workspace, EventLog.headSequence(c, tenant, workspace));
      folds.remember(tenant, workspace, current);
      return current.state();
    }
  }

  /** Every version of the workspace's state, oldest first: see {@link VersionIndex#versions}. */
  public List<Version> versions(String tenant, String workspace) throws SQLException {
    return versionIndex.versions(tenant, workspace);
  }

  /** The state at version {@code serial}, or empty: see {@link VersionIndex#version}. */
  public Optional<WorkspaceState> version(String tenant, String workspace, long serial)
      throws SQLException {
    return versionIndex.version(tenant, workspace, serial);
  }

  /** SHA-256 (hex) of a JSON value written with sorted keys. */
  public static String digest(Object json) {
    return VersionIndex.digest(json);
  }

  /**
   * Pushes a spooled document: the application's push use case over this store ({@link
   * DocumentPushes#push}, which the service's controllers call through {@code StateHistory}); for
   * tests, tools and benchmarks.
   */
  public DocumentDecider.Outcome pushDocument(
      String tenant,
      String workspace,
      long fencingToken,
      String actor,
      PushLog.Upload upload,
      boolean force)
      throws SQLException {
    return pushes.push(tenant, workspace, fencingToken, actor, upload, force);
  }

  /**
   * Pushes a document while it is received: the application's push use case over this store ({@link
   * DocumentPushes#pushStreamed}, which the service's controllers call through {@code
   * StateHistory}); for tests, tools and benchmarks.
   */
  public DocumentDecider.Outcome pushStreamed(
      String tenant,
      String workspace,
      long length,
      String actor,
      PushLog.Receiver receiver,
      DocumentPushes.FencingTokenSource fencingToken)
      throws SQLException, IOException {
    return pushes.pushStreamed(tenant, workspace, length, actor, receiver, fencingToken);
  }

  /** The state a pull sends: see {@link DocumentReader#currentDocument}. */
  public CurrentDocument currentDocument(String tenant, String workspace) throws SQLException {
    return reader.currentDocument(tenant, workspace);
  }

  /** The state a pull sends, with its bytes: see {@link DocumentReader#currentDocumentForPull}. */
  public Pull currentDocumentForPull(String tenant, String workspace) throws SQLException {
    return reader.currentDocumentForPull(tenant, workspace);
  }

  /** A stored document's bytes: see {@link DocumentReader#openDocument}. */
  public InputStream openDocument(String tenant, String workspace, StoredDocument document)
      throws SQLException {
    return reader.openDocument(tenant, workspace, document);
  }

  /** A stored document's bytes as slices: see {@link DocumentReader#openDocumentSlices}. */
  public DocumentSlices openDocumentSlices(String tenant, String workspace, StoredDocument document)
      throws SQLException {
    return reader.openDocumentSlices(tenant, workspace, document);
  }

  static StateEvent fromJson(String type, String json) {
    return EventLog.fromJson(type, json);
  }
}
