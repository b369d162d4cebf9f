package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.document.CompressedContent;
import dev.stagecraft.state.history.StoredDocument;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * A stored document's bytes, fetched slice by slice: by digest from {@code state_documents} (whose
 * bytes are in its {@code content} or, for a document written while received, in the {@code
 * document_contents} row it names, ADR 0031), or from a {@code document_contents} row by its id (a
 * push's own content, before its {@code state_documents} row exists). A content row holds its bytes
 * compressed by the service ({@code zstd}, ADR 0041), or — written before — compressed by
 * PostgreSQL ({@code packed}) or not at all ({@code content}). A document of at most {@link
 * DocumentReader#WHOLE_DOCUMENT} bytes comes in one statement; a larger one in slices of {@link
 * #DOCUMENT_SLICE}: of its compressed bytes, decompressed as they are handed out, or of its
 * uncompressed ones.
 */
final class DocumentStream extends PieceStream implements StateStore.DocumentSlices {
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
   * The next slice: of the decompressed bytes ({@link DocumentReader#DECOMPRESSED_SLICE} at most)
   * when the service compressed the document; else the whole document in one statement (at most
   * {@link DocumentReader#WHOLE_DOCUMENT} bytes) or the next slice of a large one. The first call
   * finds out the form.
   */
  private byte[] next() throws SQLException, IOException {
    if (compressed != null) {
      unpacked = CompressedContent.decompressing(new ByteArrayInputStream(compressed));
      compressed = null;
    }
    if (unpacked != null) {
      return unpacked.readNBytes(
          (int) Math.min(DocumentReader.DECOMPRESSED_SLICE, document.size() - fetched));
    }
    if (!formKnown && document.size() <= DocumentReader.WHOLE_DOCUMENT) {
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
              query(
                  "octet_length(x.zstd), substring(x.zstd FROM 1 FOR ?)",
                  DocumentReader.DOCUMENT_SLICE);
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
        document.size() - fetched <= 2L * DocumentReader.DOCUMENT_SLICE
            ? (int) (document.size() - fetched)
            : DocumentReader.DOCUMENT_SLICE;
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
              query(
                  "substring(x.zstd FROM ?::int FOR ?)", read + 1, DocumentReader.DOCUMENT_SLICE);
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
