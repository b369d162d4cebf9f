package dev.stagecraft.state.application;

import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.WorkspaceState;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/**
 * Port: where {@link DocumentPushes} writes a pushed document (implemented by the store, {@code
 * adapter.db}; ADR 0022, 0031, 0040). A push is one transaction on one connection: the workspace's
 * head and its stored document under the workspace's row lock ({@link Push#lock}), then the one
 * statement that stores the document with its event and version row ({@link SpooledPush#write},
 * {@link StreamedPush#write}). A streamed push also offers its common case in one call sent with
 * its {@code COMMIT} ({@link StreamedPush#writeInOneCall}). The use case decides; the port only
 * reads and writes. Answers are values: a refused one call is {@code false}, a sequence taken by a
 * fast append is {@link Write#SEQUENCE_TAKEN}.
 */
public interface PushLog {

  /**
   * Starts the push of a document received whole before ({@code upload}, spooled); nothing is read
   * or locked yet. Close it when done.
   */
  SpooledPush open(String tenant, String workspace, Upload upload) throws SQLException;

  /**
   * Starts the push of a document of {@code length} bytes received now: reads the head this process
   * knows (cached, else read on the push's connection), then lets {@code receiver} read the body
   * while its bytes are inserted as the push's content (ADR 0031, 0041), inside the push's
   * transaction. Close it when done; on failure nothing is left open.
   *
   * @throws RuntimeException the receiver's refusal (an HTTP problem), as it threw it
   */
  StreamedPush receive(String tenant, String workspace, long length, Receiver receiver)
      throws SQLException, IOException;

  /**
   * A document received before its push, held outside memory by the adapter that received it: its
   * reference, the validator's problems, and what the store reads.
   */
  interface Upload {
    /** The stored form's reference: digests, size, serial and lineage. */
    StoredDocument document();

    /** The validator's problems; empty when the document is valid. */
    List<String> problems();

    /** The bytes, from the start (a new stream each call; the caller closes it). */
    InputStream open() throws IOException;

    /** The whole document as plain JSON values: only for the rare same-serial comparison. */
    Object parse();

    /** A copy whose {@code serial} is {@code serial} (a forced push over a newer state). */
    Upload withSerial(long serial);
  }

  /** What receiving a streamed body found: the stored form's reference and the problems. */
  record Received(StoredDocument document, List<String> problems) {
    public Received {
      problems = List.copyOf(problems);
    }
  }

  /** Receives a pushed body, writing every byte to {@code content} as it passes. */
  @FunctionalInterface
  interface Receiver {
    /**
     * @return the document's reference and the validator's problems
     * @throws RuntimeException the body's refusal (an HTTP problem); nothing is stored
     */
    Received receive(OutputStream content) throws IOException;

    /**
     * Where the compressed bytes go once they outgrow memory (ADR 0041): the service's upload
     * directory; null for the JVM's temporary directory.
     */
    default Path spoolDirectory() {
      return null;
    }
  }

  /**
   * A workspace's head: its {@code sequence}, and the state at it — {@code document} set when the
   * head event pushed that stored document (then {@code state} holds only its serial and lineage),
   * else null and {@code state} the full fold.
   */
  record Head(long sequence, WorkspaceState state, StoredDocument document) {}

  /** The head read under the workspace's row lock, and the newest fencing token seen. */
  record Locked(Head head, long newest) {}

  /** What a write answered. */
  enum Write {
    /** Written and committed. */
    COMMITTED,
    /**
     * Nothing written: a fast append took the sequence after the head meanwhile (ADR 0052); the row
     * lock is still held: read the head {@link Push#again} and decide again.
     */
    SEQUENCE_TAKEN
  }

  /** One push's transaction: one connection. Not thread-safe. */
  interface Push extends AutoCloseable {
    /** Takes the workspace's row lock and reads the head and the newest fencing token. */
    Locked lock() throws SQLException;

    /** The head read again under the row lock still held (after {@link Write#SEQUENCE_TAKEN}). */
    Locked again() throws SQLException;

    /**
     * Whether the pushed document is the same JSON as the state at {@code head} (the decider asks
     * only for a same-serial push with other bytes).
     *
     * @throws IllegalStateException when the documents cannot be read
     */
    boolean sameContent(Head head);

    /** Rolls back whatever was not committed and returns the connection. */
    @Override
    void close() throws SQLException;
  }

  /** The push of a spooled upload. */
  interface SpooledPush extends Push {
    /**
     * Stores {@code upload}'s bytes (unless the workspace stores them already), {@code event} after
     * {@code at}'s head, its version row and, when {@code fencingToken} is newer than {@code at}'s
     * newest, the newer token — one statement — and commits.
     */
    Write write(Locked at, Upload upload, StateEvent event, long fencingToken, String actor)
        throws SQLException;
  }

  /** The push of a body received into the push's content. */
  interface StreamedPush extends Push {
    /** What receiving the body found. */
    Received received();

    /** The head this process knew before the body was received; may be stale. */
    Head known();

    /**
     * Writes {@code event} after {@code known}'s head in one call sent with its {@code COMMIT} (ADR
     * 0040): the database checks under the row lock that the token is not stale, the head is still
     * {@code known}'s and the workspace does not store these bytes already.
     *
     * @return true when committed; false when the call refused, with nothing but the content
     *     written and the transaction still open
     */
    boolean writeInOneCall(Head known, StateEvent event, long fencingToken, String actor)
        throws SQLException;

    /** As {@link SpooledPush#write}, naming the received content (or the stored bytes). */
    Write write(Locked at, StateEvent event, long fencingToken, String actor) throws SQLException;
  }
}
