package dev.stagecraft.state.adapter.db;

import dev.stagecraft.state.adapter.document.CompressedSpool;
import dev.stagecraft.state.application.PushLog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * Writes a pushed document's bytes into {@code state.document_contents} (ADR 0041): the receiver
 * (the validating parser, on the caller's thread) writes the body into a {@link CompressedSpool},
 * which compresses it with Zstandard as it arrives; once the whole body is received and found
 * valid, one {@code INSERT} stores the compressed bytes in the row's {@code zstd} column (V13), on
 * the push's connection, inside its transaction. The caller commits or rolls back. A refused body
 * writes nothing.
 *
 * <p>Before ADR 0041 the uncompressed bytes were streamed into the insert while they were received
 * (ADR 0031) and PostgreSQL compressed them (up to 16 MiB, ADR 0036); such rows ({@code packed},
 * {@code content}) are still read as they are.
 */
final class StreamedContent {
  private StreamedContent() {}

  /**
   * Receives the body with {@code receiver}, compressing what it writes, then inserts the result as
   * the content row {@code contentId} on {@code c} (autocommit off). On any failure the row is not
   * written or not complete and the caller must roll back.
   *
   * @param length the body's declared length: a receiver that accepted another length is a bug, and
   *     nothing is written
   * @param spoolDirectory where the compressed bytes go beyond {@link CompressedSpool#IN_MEMORY}
   *     (null: the JVM's temporary directory)
   * @return what the receiver found
   * @throws SQLException the insert's failure
   * @throws IOException the body's failure
   * @throws RuntimeException the receiver's refusal (a {@code Problem}), as it threw it
   */
  static PushLog.Received insert(
      Connection c,
      String tenant,
      String workspace,
      UUID contentId,
      long length,
      Instant now,
      Path spoolDirectory,
      PushLog.Receiver receiver)
      throws SQLException, IOException {
    try (CompressedSpool spool = new CompressedSpool(spoolDirectory, CompressedSpool.IN_MEMORY)) {
      PushLog.Received received = receiver.receive(spool.output());
      spool.finish();
      if (received.document().size() != length) {
        throw new IllegalStateException(
            "received " + received.document().size() + " bytes of a " + length + "-byte body");
      }
      try (InputStream in = spool.open();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO state.document_contents (tenant, workspace, content_id, zstd,"
                      + " created_at) VALUES (?, ?, ?, ?, ?)")) {
        ps.setString(1, tenant);
        ps.setString(2, workspace);
        ps.setObject(3, contentId);
        ps.setBinaryStream(4, in, spool.length());
        ps.setTimestamp(5, Timestamp.from(now));
        ps.executeUpdate();
      }
      return received;
    }
  }
}
