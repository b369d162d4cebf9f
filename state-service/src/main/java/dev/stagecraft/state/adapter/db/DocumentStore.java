package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Writes pushed state documents (ADR 0022, 0031, 0040): a spooled push, a push streamed while
 * received, and its one-call common case (ADR 0068 split this out of StateStore).
 */
final class DocumentStore {
  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds;

  DocumentStore(DataSource dataSource, Clock clock, Folds folds) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.folds = folds;
  }

  /**
   * Pushes a document received into {@code upload} (ADR 0022), with the rules of {@link
   * DocumentDecider#pushStored}, in one transaction with the same locking as {@link LockedWriter}:
   * lock the workspace, read its head without parsing a stored document, decide, store the bytes
   * once in {@code state.state_documents} (streamed from the upload; nothing when the same bytes
   * are stored already), append a small {@code state_pushed} event that references them, index the
   * version with the document's SHA-256. Four round trips (ADR 0026): the lock, the head (plus the
   * head event when it is not cached), one statement for every write, the commit. Memory: the
   * document is never held whole (except for the rare same-serial comparison, see {@link
   * DocumentDecider#pushStored}).
   *
   * @param actor who asked (stored with the event)
   * @return the outcome; nothing was written unless it was accepted with events
   */
  DocumentDecider.Outcome pushDocument(
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
        long newest = FencingLedger.lockForPush(c, tenant, workspace);
        // again when a fast append took the event's sequence meanwhile (ADR 0052): read the head
        // again, decide again; the row lock stays held
        for (int attempt = 1; ; attempt++) {
          long head = EventLog.headSequence(c, tenant, workspace);
          Folds.Head current = folds.head(c, tenant, workspace, head);
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
                  () -> sameAsSpooled(c, tenant, workspace, current, upload),
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
              new StateStore.Version(
                  document.serial(),
                  sequence,
                  now,
                  event.typeName(),
                  null,
                  actor,
                  document.digest()),
              "document-" + UUID.randomUUID() + "#1",
              EventLog.toJson(event))) {
            EventLog.lostSequence(tenant, workspace, attempt);
            continue;
          }
          c.commit();
          // no snapshot here: a stored document is cheap to fold to (its event is its reference);
          // the next write that parses it writes the snapshot when due
          folds.pushed(tenant, workspace, sequence, document);
          return outcome;
        }
      } catch (SQLException | RuntimeException e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /** Whether the spooled {@code upload} is the same JSON as the state at {@code current}. */
  private static boolean sameAsSpooled(
      Connection c, String tenant, String workspace, Folds.Head current, SpooledDocument upload) {
    WorkspaceState state = current.state();
    if (current.document() != null) {
      try {
        state = DocumentReader.load(c, tenant, workspace, current.document());
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot load the current state document: " + e.getMessage(), e);
      }
    }
    return DocumentDecider.sameJson(
        TerraformStateV4.render(state, state.lineage()), upload.parse());
  }

  /**
   * Whether the streamed {@code upload} (in the content row {@code written}, or stored already when
   * null) is the same JSON as the state at {@code current}.
   */
  private static boolean sameAsStreamed(
      Connection c,
      String tenant,
      String workspace,
      Folds.Head current,
      StoredDocument upload,
      UUID written) {
    try {
      WorkspaceState state =
          current.document() != null
              ? DocumentReader.load(c, tenant, workspace, current.document())
              : current.state();
      Object pushed;
      try (InputStream in =
          written != null
              ? new DocumentStream(c, tenant, workspace, upload, written)
              : new DocumentStream(c, tenant, workspace, upload, false)) {
        pushed = DocumentReader.DOCUMENT_VALUES.readValue(in, Object.class);
      }
      return DocumentDecider.sameJson(TerraformStateV4.render(state, state.lineage()), pushed);
    } catch (SQLException | IOException e) {
      throw new IllegalStateException(
          "cannot compare the pushed document with the current state: " + e.getMessage(), e);
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
  DocumentDecider.Outcome pushStreamed(
      String tenant,
      String workspace,
      long length,
      String actor,
      StateStore.ContentReceiver receiver,
      StateStore.FencingTokenSource fencingToken)
      throws SQLException, IOException {
    UUID contentId = UUID.randomUUID();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        // the head the one call decides on (ADR 0040): known in this process, else read now, while
        // the body's first bytes arrive
        Folds.Head known = folds.knownHead(c, tenant, workspace);
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
        return pushLocked(c, tenant, workspace, actor, received, token, contentId);
      } catch (SQLException | IOException | RuntimeException | Error e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /**
   * The full path of {@link #pushStreamed} once the one call did not commit: lock the workspace
   * (and learn whether it stores these bytes already), read the head, decide, write; again when a
   * fast append took the event's sequence. The caller rolls back on failure.
   */
  private DocumentDecider.Outcome pushLocked(
      Connection c,
      String tenant,
      String workspace,
      String actor,
      SpooledDocument.Received received,
      long token,
      UUID contentId)
      throws SQLException {
    StoredDocument upload = received.document();
    FencingLedger.PushLock lock =
        FencingLedger.lockForStreamedPush(c, tenant, workspace, upload.digest());
    long newest = lock.newest();
    long head = lock.head();
    UUID content = lock.stored() ? null : contentId;
    if (content == null) {
      // stored already: drop the new content (and the lock with it), lock again
      c.rollback();
      newest = FencingLedger.lockForPush(c, tenant, workspace);
      head = EventLog.headSequence(c, tenant, workspace);
    }
    // again when a fast append took the event's sequence meanwhile (ADR 0052): read the head
    // again, decide again; the row lock and the received content stay
    for (int attempt = 1; ; attempt++) {
      if (attempt > 1) {
        head = EventLog.headSequence(c, tenant, workspace);
      }
      Folds.Head current = folds.head(c, tenant, workspace, head);
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
              () -> sameAsStreamed(c, tenant, workspace, current, upload, written),
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
          new StateStore.Version(
              upload.serial(), sequence, now, event.typeName(), null, actor, upload.digest()),
          "document-" + UUID.randomUUID() + "#1",
          EventLog.toJson(event))) {
        EventLog.lostSequence(tenant, workspace, attempt);
        continue;
      }
      c.commit();
      folds.pushed(tenant, workspace, sequence, upload);
      return outcome;
    }
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
      Folds.Head known,
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
      ps.setString(++i, EventLog.toJson(event));
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
    folds.pushed(tenant, workspace, sequence, upload);
    return outcome;
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
      StateStore.Version version,
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
            + (advanceTo == null ? "" : FencingLedger.ADVANCE_WITH_EVENT)
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
        i = FencingLedger.bindAdvanceWithEvent(ps, i, advanceTo, tenant, workspace);
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
}
