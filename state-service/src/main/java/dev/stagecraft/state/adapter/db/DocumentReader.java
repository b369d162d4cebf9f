package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Reads stored documents (ADR 0022, 0031, 0036, 0041): the state a pull sends, the bytes of a
 * stored document, a document parsed into the state it makes. Part of the state write path split
 * (ADR 0068).
 */
final class DocumentReader {
  private static final TypeReference<Map<String, Object>> JSON_OBJECT = new TypeReference<>() {};
  private final DataSource dataSource;
  private final Folds folds;

  DocumentReader(DataSource dataSource, Folds folds) {
    this.dataSource = dataSource;
    this.folds = folds;
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

  /** Reads plain JSON values; decimals keep their precision. */
  static final ObjectMapper DOCUMENT_VALUES =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * A stored document parsed into the state it makes (the one place a document is parsed whole).
   */
  static WorkspaceState load(Connection c, String tenant, String workspace, StoredDocument document)
      throws SQLException {
    try (InputStream in = new DocumentStream(c, tenant, workspace, document, false)) {
      return TerraformStateV4.parse(DOCUMENT_VALUES.readValue(in, JSON_OBJECT));
    } catch (IOException e) {
      throw new IllegalStateException(
          "stored state document " + document.digest() + " unreadable: " + e.getMessage(), e);
    }
  }

  /**
   * The workspace's current state for a pull: the stored document when the head event pushed it
   * (the document is not read), else the fold as {@link StateStore#currentState} gives it.
   */
  StateStore.CurrentDocument currentDocument(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Folds.Head head =
          folds.head(c, tenant, workspace, EventLog.headSequence(c, tenant, workspace));
      return head.document() != null
          ? new StateStore.CurrentDocument(head.document(), null)
          : new StateStore.CurrentDocument(null, head.state());
    }
  }

  /**
   * {@link #currentDocument} for a pull, in one round trip in the common case (ADR 0031): when this
   * process saw the workspace's head be a stored document of at most {@link #WHOLE_DOCUMENT} bytes
   * (what one slice query returns anyway, ADR 0036), one statement reads the head sequence and, if
   * it is still that document's, the document's stored bytes whole. Otherwise (not cached, moved
   * on, larger) as {@link #currentDocument}, without the bytes.
   */
  StateStore.Pull currentDocumentForPull(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Folds.DocumentHead cached = folds.cachedDocument(tenant, workspace);
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
            return new StateStore.Pull(
                new StateStore.CurrentDocument(cached.document(), null),
                DocumentStream.held(cached.document(), plain, zstd));
          }
        }
      } else {
        sequence = EventLog.headSequence(c, tenant, workspace);
      }
      Folds.Head head = folds.head(c, tenant, workspace, sequence);
      return new StateStore.Pull(
          head.document() != null
              ? new StateStore.CurrentDocument(head.document(), null)
              : new StateStore.CurrentDocument(null, head.state()),
          null);
    }
  }

  /**
   * The bytes of a stored document of the workspace, read in slices of {@value #DOCUMENT_SLICE}
   * bytes on a connection of its own that closing the stream returns. Documents never change, so
   * the slices need no common snapshot.
   */
  InputStream openDocument(String tenant, String workspace, StoredDocument document)
      throws SQLException {
    Connection c = dataSource.getConnection();
    return new DocumentStream(c, tenant, workspace, document, true);
  }

  /**
   * The bytes of a stored document of the workspace as {@link StateStore.DocumentSlices}, on a
   * connection of its own that closing them returns (as {@link #openDocument}).
   */
  StateStore.DocumentSlices openDocumentSlices(
      String tenant, String workspace, StoredDocument document) throws SQLException {
    Connection c = dataSource.getConnection();
    return new DocumentStream(c, tenant, workspace, document, true);
  }
}
