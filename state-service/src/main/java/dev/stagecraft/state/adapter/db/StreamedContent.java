package dev.stagecraft.state.adapter.db;

import dev.stagecraft.state.adapter.document.ContentPipe;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a pushed document's bytes into {@code state.document_contents} while they are received
 * (ADR 0031): the receiver (the validating parser, on the caller's thread) writes the body into a
 * {@link ContentPipe}; a second thread streams the pipe into the row's {@code INSERT} with the
 * declared length (pgjdbc sends a stream of known length as it reads it, without buffering it), on
 * the push's connection, inside its transaction. The caller commits or rolls back. A document of at
 * most {@link #PACKED_LIMIT} bytes is stored compressed ({@code packed}), a larger one uncompressed
 * ({@code content}; V11, ADR 0036).
 */
final class StreamedContent {
  /** Chunks of the pipe: 64 KiB, at most 4 waiting (256 KiB in flight, reused once read). */
  static final int CHUNK = 64 * 1024;

  static final int CHUNKS_WAITING = 4;

  /**
   * The largest document whose bytes go into {@code packed} (the default storage: compressed when
   * that helps, ADR 0036) rather than {@code content} ({@code STORAGE EXTERNAL}: uncompressed, so
   * that any slice of a large document is read without decompressing what comes before it).
   */
  static final long PACKED_LIMIT = 16L * 1024 * 1024;

  /** The content inserts (threads that mostly wait on the database's socket). */
  private static final ExecutorService WRITERS = Executors.newVirtualThreadPerTaskExecutor();

  private StreamedContent() {}

  /** What receives the body into the content: the bytes go to {@code content} as they are read. */
  @FunctionalInterface
  interface Receiver {
    SpooledDocument.Received receive(OutputStream content) throws IOException;
  }

  /**
   * Receives the body with {@code receiver} while inserting what it writes as the content row
   * {@code contentId} of exactly {@code length} bytes on {@code c} (autocommit off; not used by the
   * caller until this returns). Returns once both are done; on any failure the row is not complete
   * and the caller must roll back.
   *
   * @return what the receiver found
   * @throws SQLException the insert's failure (also when it made the receiver fail)
   * @throws IOException the body's failure
   * @throws RuntimeException the receiver's refusal (a {@code Problem}), as it threw it
   */
  static SpooledDocument.Received insert(
      Connection c,
      String tenant,
      String workspace,
      UUID contentId,
      long length,
      Instant now,
      Receiver receiver)
      throws SQLException, IOException {
    ContentPipe pipe = new ContentPipe(CHUNK, CHUNKS_WAITING);
    Future<Void> written =
        WRITERS.submit(
            () -> {
              try (var in = pipe.input();
                  PreparedStatement ps =
                      c.prepareStatement(
                          "INSERT INTO state.document_contents (tenant, workspace, content_id, "
                              + (length <= PACKED_LIMIT ? "packed" : "content")
                              + ", created_at) VALUES (?, ?, ?, ?, ?)")) {
                ps.setString(1, tenant);
                ps.setString(2, workspace);
                ps.setObject(3, contentId);
                ps.setBinaryStream(4, in, length);
                ps.setTimestamp(5, Timestamp.from(now));
                ps.executeUpdate();
              }
              return null;
            });
    SpooledDocument.Received received;
    try {
      received = receiver.receive(pipe.output());
      pipe.output().close();
    } catch (IOException | RuntimeException | Error e) {
      boolean databaseFirst = pipe.readerClosed();
      pipe.abort(e);
      Throwable failed = outcome(written);
      if (databaseFirst && failed != null) {
        // the insert failed first: the receiver's failure is its consequence
        SQLException cause = asSql(failed);
        cause.addSuppressed(e);
        throw cause;
      }
      throw e;
    }
    Throwable failed = outcome(written);
    if (failed != null) {
      throw asSql(failed);
    }
    return received;
  }

  /** Waits for the insert; its failure, or null when it succeeded. */
  private static Throwable outcome(Future<Void> written) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          written.get();
          return null;
        } catch (ExecutionException e) {
          return e.getCause();
        } catch (InterruptedException e) {
          // the insert is bounded by the pipe, which has ended: wait for it to give the connection
          // back in a known state
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static SQLException asSql(Throwable failed) {
    return failed instanceof SQLException q
        ? q
        : new SQLException("cannot write the uploaded document: " + failed, failed);
  }
}
