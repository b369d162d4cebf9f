package dev.stagecraft.state.adapter.http;

import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.application.PushLog;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * Receives pushed state documents as streams (ADR 0022): the request body is never buffered; it is
 * copied to a temporary file while it is digested, size-checked and then validated (see {@link
 * SpooledDocument}). The size limit is {@code stagecraft.state.max-document-size} (bytes, default
 * 512 MiB), which applies to the state push endpoints only: every endpoint that binds its body as a
 * string is limited by {@code micronaut.server.max-request-buffer-size} (10 MiB) instead (see
 * application.yml). At most {@code stagecraft.state.streamed-pushes} pushes (default 4) are
 * streamed into PostgreSQL at once (ADR 0031): each holds a pooled connection for its whole upload,
 * so a few slow clients must not take the pool from every other request; the pushes beyond that are
 * spooled to a file first, as a chunked one is. Thread-safe.
 */
@Singleton
public class DocumentUploads {
  private final long maxDocumentSize;
  private final Path directory;
  private final Semaphore streaming;

  public DocumentUploads(
      @Value("${stagecraft.state.max-document-size:536870912}") long maxDocumentSize,
      @Value("${stagecraft.state.upload-dir:}") String uploadDir,
      @Value("${stagecraft.state.streamed-pushes:4}") int streamedPushes) {
    if (streamedPushes < 0) {
      throw new IllegalArgumentException(
          "stagecraft.state.streamed-pushes (STAGECRAFT_STATE_STREAMED_PUSHES) must be 0 or more,"
              + " was "
              + streamedPushes
              + ": it is how many pushes may hold a database connection for their upload at once"
              + " (0: every push is spooled to a file first)");
    }
    this.streaming = new Semaphore(streamedPushes);
    this.maxDocumentSize = maxDocumentSize;
    try {
      this.directory =
          uploadDir == null || uploadDir.isBlank()
              ? Path.of(System.getProperty("java.io.tmpdir"))
              : Files.createDirectories(Path.of(uploadDir));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the upload directory " + uploadDir, e);
    }
  }

  /** The largest state document accepted, in bytes. */
  public long maxDocumentSize() {
    return maxDocumentSize;
  }

  /**
   * Takes one of the streamed pushes' places without waiting; false when all are taken (the push is
   * then spooled). A true answer must be followed by {@link #endStreaming()}.
   */
  public boolean tryStartStreaming() {
    return streaming.tryAcquire();
  }

  /** Gives back the place {@link #tryStartStreaming()} took. */
  public void endStreaming() {
    streaming.release();
  }

  /**
   * The body received without a file (ADR 0031): each byte is written to {@code content} as it
   * passes, while it is digested and validated, as {@link SpooledDocument#receiveStreamed} does;
   * the caller closes {@code body}.
   *
   * @throws dev.stagecraft.servicekit.http.Problem 400 (length not {@code length}, wrong MD5, not
   *     JSON)
   */
  public PushLog.Received receiveStreamed(
      InputStream body, String contentMd5, long length, OutputStream content) throws IOException {
    return SpooledDocument.receiveStreamed(body, contentMd5, length, content);
  }

  /**
   * {@link #receiveStreamed} as a push's receiver, whose compressed bytes go to the upload
   * directory once they outgrow memory (ADR 0041).
   */
  public PushLog.Receiver streamedReceiver(InputStream body, String contentMd5, long length) {
    return new PushLog.Receiver() {
      @Override
      public PushLog.Received receive(OutputStream content) throws IOException {
        return receiveStreamed(body, contentMd5, length, content);
      }

      @Override
      public Path spoolDirectory() {
        return directory;
      }
    };
  }

  /**
   * The body spooled, checked against {@code contentMd5} and validated; the caller closes it.
   *
   * @throws dev.stagecraft.servicekit.http.Problem 400 (empty, wrong MD5, not JSON), 413 (too
   *     large)
   */
  public SpooledDocument receive(InputStream body, String contentMd5) {
    try (InputStream in = body) {
      return SpooledDocument.receive(in, contentMd5, maxDocumentSize, directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot receive the uploaded state document", e);
    }
  }
}
