package dev.stagecraft.state.adapter.document;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A document's bytes compressed with Zstandard as they are written (ADR 0041): what {@link
 * #output()} receives leaves it compressed (one zstd frame, level {@value #LEVEL}), kept in memory
 * up to {@code inMemory} compressed bytes and in a temporary file (owner-only, deleted by {@link
 * #close}) beyond that, so a push holds a bounded amount of memory whatever the document's size and
 * however well it compresses. {@link #finish} ends the frame; then {@link #length} and {@link
 * #open} give the compressed bytes, to be stored as they are.
 *
 * <p>Not thread-safe: one push writes it, then reads it, then closes it.
 */
public final class CompressedSpool implements AutoCloseable {
  /**
   * The compression level: zstd's fastest regular level. On state documents it compresses at
   * several hundred MB/s on one core (measured in ADR 0041), faster than the request body arrives,
   * and smaller than PostgreSQL's pglz.
   */
  public static final int LEVEL = 1;

  /** Compressed bytes a spool keeps in memory before it moves them to a file. */
  public static final int IN_MEMORY = 1 << 20;

  private final Path directory;
  private final int inMemory;
  private final Sink sink = new Sink();
  private final ZstdOutputStreamNoFinalizer compressor;
  private final OutputStream output;

  /**
   * The compressed bytes while in memory: full chunks of {@link #CHUNK} bytes and the last one, as
   * many as they fill (no array larger than a chunk: none is copied to grow, none counts as a
   * humongous object for G1).
   */
  private final List<byte[]> chunks = new ArrayList<>();

  private int lastFill = CHUNK;

  /** Bytes per in-memory chunk. */
  static final int CHUNK = 64 * 1024;

  private Path file;
  private OutputStream fileOut;
  private long length;
  private boolean finished;
  private boolean closed;

  /**
   * @param directory where a spool larger than {@code inMemory} goes (null: the JVM's temporary
   *     directory)
   * @param inMemory compressed bytes kept in memory at most
   */
  public CompressedSpool(Path directory, int inMemory) throws IOException {
    if (inMemory <= 0) {
      throw new IllegalArgumentException("inMemory must be positive");
    }
    this.directory = directory;
    this.inMemory = inMemory;
    this.compressor = new ZstdOutputStreamNoFinalizer(sink, LEVEL);
    this.output = new Input();
  }

  /**
   * Where the document's bytes are written. Closing it does nothing: {@link #finish} ends the
   * frame.
   */
  public OutputStream output() {
    return output;
  }

  /** Ends the compressed frame; after it nothing more can be written. */
  public void finish() throws IOException {
    if (finished) {
      return;
    }
    finished = true;
    compressor.close(); // writes the frame's end into the sink
    if (fileOut != null) {
      fileOut.close();
    }
  }

  /** The compressed length, in bytes (after {@link #finish}). */
  public long length() {
    requireFinished();
    return length;
  }

  /** Whether the compressed bytes went to a file (they outgrew the memory bound). */
  public boolean spilled() {
    return file != null;
  }

  /** The compressed bytes, from the start (after {@link #finish}); the caller closes it. */
  public InputStream open() throws IOException {
    requireFinished();
    return file != null ? Files.newInputStream(file) : held();
  }

  /** The compressed bytes held in memory, in order. */
  private InputStream held() {
    List<InputStream> parts = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      parts.add(
          new ByteArrayInputStream(chunks.get(i), 0, i == chunks.size() - 1 ? lastFill : CHUNK));
    }
    return new SequenceInputStream(Collections.enumeration(parts));
  }

  /** Releases the compressor and deletes the file, if any. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (!finished) {
        finished = true;
        try {
          compressor.close();
        } catch (IOException e) {
          // abandoned: only the native context must go
        }
        if (fileOut != null) {
          fileOut.close();
        }
      }
    } finally {
      chunks.clear();
      if (file != null) {
        Files.deleteIfExists(file);
      }
    }
  }

  private void requireFinished() {
    if (!finished || closed) {
      throw new IllegalStateException("the spool is not finished, or closed");
    }
  }

  /** The uncompressed side: into the compressor. */
  private final class Input extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (finished) {
        throw new IOException("the compressed spool is finished");
      }
      compressor.write(b, off, len);
    }

    @Override
    public void close() {}
  }

  /** The compressed side: memory, then a file once more than {@code inMemory} bytes came. */
  private final class Sink extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (fileOut == null && length + len <= inMemory) {
        length += len;
        while (len > 0) {
          if (lastFill == CHUNK) {
            chunks.add(new byte[CHUNK]);
            lastFill = 0;
          }
          int n = Math.min(len, CHUNK - lastFill);
          System.arraycopy(b, off, chunks.get(chunks.size() - 1), lastFill, n);
          lastFill += n;
          off += n;
          len -= n;
        }
        return;
      }
      if (fileOut == null) {
        file =
            directory == null
                ? Files.createTempFile("state-content-", ".zst")
                : Files.createTempFile(directory, "state-content-", ".zst");
        fileOut = new BufferedOutputStream(Files.newOutputStream(file), CHUNK);
        try (InputStream held = held()) {
          held.transferTo(fileOut);
        }
        chunks.clear();
      }
      length += len;
      fileOut.write(b, off, len);
    }

    @Override
    public void close() {
      // the compressor closes its sink when it ends the frame; the file is closed by finish()
    }
  }
}
