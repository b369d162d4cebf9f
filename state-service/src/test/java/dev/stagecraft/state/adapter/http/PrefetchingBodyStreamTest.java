package dev.stagecraft.state.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.core.io.buffer.ReadBuffer;
import io.micronaut.core.io.buffer.ReadBufferFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * A request body read ahead of its reader (ADR 0036): the bytes come out as they went in, whatever
 * the pieces and the reads; never more than {@link PrefetchingBodyStream#AHEAD} pieces are
 * requested beyond those the reader finished; a failure of the body reaches the reader after the
 * bytes before it; closing early cancels the rest.
 */
class PrefetchingBodyStreamTest {
  private static final ReadBufferFactory BUFFERS = ReadBufferFactory.getJdkFactory();

  /** {@code total} seeded random bytes cut into pieces of 0 to 70,000 bytes. */
  private static List<byte[]> pieces(int total, long seed) {
    Random random = new Random(seed);
    List<byte[]> pieces = new ArrayList<>();
    for (int left = total; left > 0; ) {
      byte[] piece = new byte[Math.min(left, random.nextInt(70_001))];
      random.nextBytes(piece);
      pieces.add(piece);
      left -= piece.length;
    }
    return pieces;
  }

  private static byte[] concat(List<byte[]> pieces) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    pieces.forEach(all::writeBytes);
    return all.toByteArray();
  }

  @Test
  void theBytesComeOutAsTheyWentInWhateverTheReads() throws IOException {
    List<byte[]> pieces = pieces(3 << 20, 36);
    Random reads = new Random(7);
    try (InputStream in = PrefetchingBodyStream.of(Flux.fromIterable(pieces).map(BUFFERS::adapt))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[100_000];
      for (int n; ; ) {
        if (reads.nextInt(10) == 0) {
          int b = in.read();
          if (b < 0) {
            break;
          }
          out.write(b);
          continue;
        }
        n = in.read(buffer, 3, 1 + reads.nextInt(buffer.length - 3));
        if (n < 0) {
          break;
        }
        out.write(buffer, 3, n);
      }
      assertThat(out.toByteArray()).isEqualTo(concat(pieces));
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void atMostAheadPiecesAreRequestedBeyondWhatTheReaderFinished() throws IOException {
    List<byte[]> pieces = pieces(2 << 20, 1);
    AtomicLong requested = new AtomicLong();
    AtomicLong finished = new AtomicLong();
    long[] mostAhead = {0};
    try (InputStream in =
        PrefetchingBodyStream.of(
            Flux.fromIterable(pieces)
                .map(BUFFERS::adapt)
                .doOnRequest(
                    n -> {
                      long ahead = requested.addAndGet(n) - finished.get();
                      mostAhead[0] = Math.max(mostAhead[0], ahead);
                    }))) {
      assertThat(requested).as("requested ahead at once").hasValue(PrefetchingBodyStream.AHEAD);
      byte[] buffer = new byte[1 << 20];
      int index = 0;
      for (byte[] piece : pieces) {
        // a whole piece at a time: the reader finished it when it asks for the next
        int got = in.readNBytes(buffer, 0, piece.length);
        assertThat(Arrays.copyOf(buffer, got)).isEqualTo(piece);
        finished.set(++index);
      }
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(pieces.size()).isGreaterThan(2 * PrefetchingBodyStream.AHEAD);
    assertThat(mostAhead[0]).isLessThanOrEqualTo(PrefetchingBodyStream.AHEAD + 1);
  }

  @Test
  void aFailureOfTheBodyReachesTheReaderAfterTheBytesBeforeIt() throws IOException {
    IOException broken = new IOException("connection reset by peer");
    try (InputStream in =
        PrefetchingBodyStream.of(
            Flux.just(new byte[] {1, 2, 3}, new byte[] {4})
                .map(BUFFERS::adapt)
                .concatWith(Flux.error(broken)))) {
      assertThat(in.readNBytes(4)).containsExactly(1, 2, 3, 4);
      assertThatThrownBy(in::read).isSameAs(broken);
    }
    try (InputStream in =
        PrefetchingBodyStream.of(
            Flux.<ReadBuffer>error(new IllegalStateException("body too large")))) {
      assertThatThrownBy(in::read)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("body too large");
    }
  }

  @Test
  void closingEarlyCancelsTheRestOfTheBody() throws IOException {
    AtomicBoolean canceled = new AtomicBoolean();
    InputStream in =
        PrefetchingBodyStream.of(
            Flux.fromIterable(pieces(4 << 20, 2))
                .map(BUFFERS::adapt)
                .doOnCancel(() -> canceled.set(true)));
    assertThat(in.read(new byte[10])).isEqualTo(10);
    in.close();
    assertThat(canceled).isTrue();
    assertThatThrownBy(in::read).isInstanceOf(IOException.class);
  }
}
