package dev.stagecraft.state.adapter.db;

import java.io.IOException;
import java.io.InputStream;
import java.sql.SQLException;

/**
 * An input stream over pieces of bytes that a subclass fetches one at a time ({@link #more}): the
 * stored document's slices and their compressed bytes (ADR 0041) are read this way.
 */
abstract class PieceStream extends InputStream {
  /** The current piece; {@link #pieceAt} is the next unread byte in it. */
  protected byte[] piece = new byte[0];

  protected int pieceAt;

  /** Whether every piece has been fetched. */
  protected abstract boolean exhausted();

  /** Fetches the next piece (null or empty: the stored bytes end too early). */
  protected abstract byte[] fetch() throws IOException, SQLException;

  /** What the stream reads, for the message of a failure. */
  protected abstract String what();

  /** Called with each piece once it is current (counting, checks). */
  protected void took(byte[] piece) throws IOException {}

  /** Makes a piece with unread bytes current; false at the end of the stream. */
  protected final boolean more() throws IOException {
    if (pieceAt < piece.length) {
      return true;
    }
    if (exhausted()) {
      return false;
    }
    byte[] next;
    try {
      next = fetch();
    } catch (SQLException e) {
      throw new IOException(e);
    }
    if (next == null || next.length == 0) {
      throw new IOException(what() + " is truncated");
    }
    piece = next;
    pieceAt = 0;
    took(next);
    return true;
  }

  @Override
  public int read() throws IOException {
    return more() ? piece[pieceAt++] & 0xff : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!more()) {
      return -1;
    }
    int n = Math.min(len, piece.length - pieceAt);
    System.arraycopy(piece, pieceAt, b, off, n);
    pieceAt += n;
    return n;
  }
}
