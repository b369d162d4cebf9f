package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.PushLog;
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
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The application's {@link PushLog} (ADR 0022, 0031, 0040; split out of StateStore by ADR 0068): a
 * push's transaction on one connection — the workspace's row lock through {@link FencingLedger},
 * the head and its stored document through {@link Folds}, the one statement that stores an accepted
 * push (the document's row, the newer token, the event and the version row), and the streamed
 * push's one call ({@code state.push_streamed}). It decides nothing: {@code
 * application.DocumentPushes} asks {@code DocumentDecider} between these calls.
 *
 * <p>Thread-safe; each push it opens is one connection, used by one thread at a time.
 */
final class DocumentStore implements PushLog {
  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds;

  DocumentStore(DataSource dataSource, Clock clock, Folds folds) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.folds = folds;
  }

  /**
   * A push of a spooled upload, with the same locking as {@link LockedWriter}: lock the workspace,
   * read its head without parsing a stored document, (the use case decides,) store the bytes once
   * in {@code state.state_documents} (streamed from the upload; nothing when the same bytes are
   * stored already), append a small {@code state_pushed} event that references them, index the
   * version with the document's SHA-256. Four round trips (ADR 0026): the lock, the head (plus the
   * head event when it is not cached), one statement for every write, the commit.
   */
  @Override
  public SpooledPush open(String tenant, String workspace, Upload upload) throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      c.setAutoCommit(false);
    } catch (SQLException | RuntimeException e) {
      closeAfter(c, e);
      throw e;
    }
    return new Spooled(c, tenant, workspace, upload);
  }

  /**
   * A push of a body of known {@code length} received now (ADR 0031): on one connection, in one
   * transaction, the head this process knows (cached, else read now, while the body's first bytes
   * arrive: ADR 0040), then the bytes {@code receiver} reads compressed into a new {@code
   * state.document_contents} row while the receiver validates them ({@link StreamedContent}). The
   * workspace's row lock is taken only after the body has arrived ({@link StreamedPush#lock}, which
   * also tells whether the workspace stores these bytes already: then the content is rolled back
   * and the existing row referenced), so a slow upload holds a connection but blocks no writer.
   * Anything not committed — a refused body, lock or push — rolls the content back.
   */
  @Override
  public StreamedPush receive(String tenant, String workspace, long length, Receiver receiver)
      throws SQLException, IOException {
    UUID contentId = UUID.randomUUID();
    Connection c = dataSource.getConnection();
    try {
      c.setAutoCommit(false);
      Folds.Head known = folds.knownHead(c, tenant, workspace);
      Received received =
          StreamedContent.insert(
              c,
              tenant,
              workspace,
              contentId,
              length,
              clock.instant(),
              receiver.spoolDirectory(),
              receiver);
      return new Streamed(c, tenant, workspace, received, head(known), contentId);
    } catch (SQLException | IOException | RuntimeException | Error e) {
      Sql.rollbackAfter(c, e);
      closeAfter(c, e);
      throw e;
    }
  }

  private static void closeAfter(Connection c, Throwable failure) {
    try {
      c.close();
    } catch (SQLException | RuntimeException close) {
      failure.addSuppressed(close);
    }
  }

  private static Head head(Folds.Head head) {
    return new Head(head.sequence(), head.state(), head.document());
  }

  /** What both pushes share: the connection, the newest token once locked, the end. */
  private abstract class Transaction implements Push {
    final Connection c;
    final String tenant;
    final String workspace;
    long newest;
    boolean committed;

    Transaction(Connection c, String tenant, String workspace) {
      this.c = c;
      this.tenant = tenant;
      this.workspace = workspace;
    }

    /** The head at {@code sequence}, locked: the state or the stored document at it. */
    final Locked locked(long sequence) throws SQLException {
      return new Locked(head(folds.head(c, tenant, workspace, sequence)), newest);
    }

    @Override
    public final Locked again() throws SQLException {
      return locked(EventLog.headSequence(c, tenant, workspace));
    }

    /**
     * The event of an accepted push after {@code at}'s head, stored with {@code content}: commits
     * and remembers the document head when the sequence was free.
     */
    final Write write(
        Locked at, DocumentContent content, StateEvent event, long fencingToken, String actor)
        throws SQLException {
      StoredDocument document = content.document();
      long sequence = at.head().sequence() + 1;
      if (!storeDocumentAndEvent(
          c,
          tenant,
          workspace,
          content,
          fencingToken > at.newest() ? fencingToken : null,
          new StateStore.Version(
              document.serial(),
              sequence,
              clock.instant(),
              event.typeName(),
              null,
              actor,
              document.digest()),
          "document-" + UUID.randomUUID() + "#1",
          EventLog.toJson(event))) {
        return Write.SEQUENCE_TAKEN;
      }
      c.commit();
      committed = true;
      // no snapshot here: a stored document is cheap to fold to (its event is its reference); the
      // next write that parses it writes the snapshot when due
      folds.pushed(tenant, workspace, sequence, document);
      return Write.COMMITTED;
    }

    @Override
    public final void close() throws SQLException {
      try (c) {
        if (!committed) {
          c.rollback();
        }
      }
    }
  }

  /** {@link #open}'s push. */
  private final class Spooled extends Transaction implements SpooledPush {
    private final Upload upload;

    Spooled(Connection c, String tenant, String workspace, Upload upload) {
      super(c, tenant, workspace);
      this.upload = upload;
    }

    @Override
    public Locked lock() throws SQLException {
      newest = FencingLedger.lockForPush(c, tenant, workspace);
      return again();
    }

    @Override
    public boolean sameContent(Head head) {
      WorkspaceState state = head.state();
      if (head.document() != null) {
        try {
          state = DocumentReader.load(c, tenant, workspace, head.document());
        } catch (SQLException e) {
          throw new IllegalStateException(
              "cannot load the current state document: " + e.getMessage(), e);
        }
      }
      return DocumentDecider.sameJson(
          TerraformStateV4.render(state, state.lineage()), upload.parse());
    }

    @Override
    public Write write(Locked at, Upload stored, StateEvent event, long fencingToken, String actor)
        throws SQLException {
      return write(
          at, new DocumentContent(stored.document(), stored, null), event, fencingToken, actor);
    }
  }

  /** {@link #receive}'s push. */
  private final class Streamed extends Transaction implements StreamedPush {
    private final Received received;
    private final Head known;
    // the content row written while received; null once the workspace is found to store the
    // bytes already (the row rolled back, the stored one referenced)
    private UUID content;

    Streamed(
        Connection c,
        String tenant,
        String workspace,
        Received received,
        Head known,
        UUID contentId) {
      super(c, tenant, workspace);
      this.received = received;
      this.known = known;
      this.content = contentId;
    }

    @Override
    public Received received() {
      return received;
    }

    @Override
    public Head known() {
      return known;
    }

    /**
     * The lock, the head and whether the workspace stores these bytes already, in one round trip;
     * when it does, the new content (and the lock with it) is rolled back and the lock taken again.
     */
    @Override
    public Locked lock() throws SQLException {
      FencingLedger.PushLock lock =
          FencingLedger.lockForStreamedPush(c, tenant, workspace, received.document().digest());
      newest = lock.newest();
      long head = lock.head();
      if (lock.stored()) {
        c.rollback();
        content = null;
        newest = FencingLedger.lockForPush(c, tenant, workspace);
        head = EventLog.headSequence(c, tenant, workspace);
      }
      return locked(head);
    }

    @Override
    public boolean sameContent(Head head) {
      StoredDocument upload = received.document();
      try {
        WorkspaceState state =
            head.document() != null
                ? DocumentReader.load(c, tenant, workspace, head.document())
                : head.state();
        Object pushed;
        try (InputStream in =
            content != null
                ? new DocumentStream(c, tenant, workspace, upload, content)
                : new DocumentStream(c, tenant, workspace, upload, false)) {
          pushed = DocumentReader.DOCUMENT_VALUES.readValue(in, Object.class);
        }
        return DocumentDecider.sameJson(TerraformStateV4.render(state, state.lineage()), pushed);
      } catch (SQLException | IOException e) {
        throw new IllegalStateException(
            "cannot compare the pushed document with the current state: " + e.getMessage(), e);
      }
    }

    @Override
    public Write write(Locked at, StateEvent event, long fencingToken, String actor)
        throws SQLException {
      return write(
          at, new DocumentContent(received.document(), null, content), event, fencingToken, actor);
    }

    @Override
    public boolean writeInOneCall(Head known, StateEvent event, long fencingToken, String actor)
        throws SQLException {
      StoredDocument upload = received.document();
      long sequence;
      try {
        sequence = pushStreamed(known, upload, event, fencingToken, actor);
      } catch (SQLException e) {
        if (!PUSH_REFUSED.equals(e.getSQLState())) {
          throw e;
        }
        try (Statement rollback = c.createStatement()) {
          rollback.execute("ROLLBACK TO SAVEPOINT push_streamed");
        }
        return false;
      }
      committed = true;
      folds.pushed(tenant, workspace, sequence, upload);
      return true;
    }

    /**
     * {@code SAVEPOINT}, {@code state.push_streamed} (V12: under the workspace's row lock, it
     * checks the token against the newest, the head against {@code known}'s and that the workspace
     * does not store these bytes already, then writes the document row naming the content, the
     * newer token, the event and the version row) and {@code COMMIT}, in one message. When the call
     * refuses (SQLSTATE {@value #PUSH_REFUSED}), PostgreSQL skips the {@code COMMIT}.
     *
     * @return the event's sequence
     */
    private long pushStreamed(
        Head known, StoredDocument upload, StateEvent event, long token, String actor)
        throws SQLException {
      Timestamp now = Timestamp.from(clock.instant());
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
        ps.setObject(++i, content);
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
          return rs.getLong(1);
        }
      }
    }
  }

  /** The SQLSTATE {@code state.push_streamed} refuses with (V12): stale, moved or stored. */
  static final String PUSH_REFUSED = "SC409";

  /**
   * Where an accepted push's bytes are: in {@code upload} (a spooled file, streamed into {@code
   * state_documents.content}), in the {@code state.document_contents} row {@code contentId}
   * (written while received, ADR 0031), or — both null — in the workspace's {@code state_documents}
   * row of the same digest already.
   */
  private record DocumentContent(StoredDocument document, Upload upload, UUID contentId) {}

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
