package dev.stagecraft.state.adapter.db;

import java.io.IOException;
import java.io.InputStream;

/**
 * An input stream over pieces of bytes that a subclass fetches one at a time ({@link #more}): the
 * stored document's slices and their compressed bytes (ADR 0041) are read this way.
 */
abstract class PieceStream extends InputStream {
  /** The current piece; {@link #pieceAt} is the next unread byte in it. */
  protected byte[] piece = new byte[0];

  protected int pieceAt;

  /** Makes a piece with unread bytes current; false at the end of the stream. */
  protected abstract boolean more() throws IOException;

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
