package dev.stagecraft.state.adapter.document;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bounded pipe between the receiving parser and the content insert (ADR 0031). */
class ContentPipeTest {

  @Test
  void bytesComeOutInOrderAcrossChunksWhileTheWriterWaitsForRoom() throws Exception {
    ContentPipe pipe = new ContentPipe(1000, 2); // far smaller than the data: the writer must wait
    byte[] data = new byte[123_457];
    new Random(7).nextBytes(data);
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try (OutputStream out = pipe.output()) {
                int at = 0;
                for (int n = 1; at < data.length; n = n * 3 % 4099 + 1) {
                  int len = Math.min(n, data.length - at);
                  out.write(data, at, len);
                  at += len;
                }
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    try (InputStream in = pipe.input()) {
      byte[] buffer = new byte[777];
      for (int n; (n = in.read(buffer)) >= 0; ) {
        read.write(buffer, 0, n);
      }
    }
    writer.get(30, TimeUnit.SECONDS);
    assertThat(read.toByteArray()).isEqualTo(data);
  }

  @Test
  void anAbortReachesTheReaderWithItsCause() throws Exception {
    ContentPipe pipe = new ContentPipe(16, 4);
    pipe.output().write(new byte[40]);
    IllegalStateException cause = new IllegalStateException("not JSON");
    pipe.abort(cause);

    assertThatThrownBy(() -> pipe.input().readAllBytes())
        .isInstanceOf(IOException.class)
        .hasCause(cause);
  }

  @Test
  void aWriterBlockedOnAFullPipeFailsOnceTheReaderIsGone() throws Exception {
    ContentPipe pipe = new ContentPipe(4, 1);
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try {
                pipe.output().write(new byte[64]); // more than fits: blocks until read or closed
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    assertThat(pipe.input().read()).isZero(); // the reader takes something, then gives up
    pipe.input().close();

    assertThatThrownBy(() -> writer.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseInstanceOf(IOException.class)
        .rootCause()
        .hasMessageContaining("stopped reading");
    assertThat(pipe.readerClosed()).isTrue();
  }
}
