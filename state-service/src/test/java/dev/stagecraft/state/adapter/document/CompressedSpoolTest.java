package dev.stagecraft.state.adapter.document;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CompressedSpool} and {@link CompressedContent} (ADR 0041): what goes in comes back byte
 * for byte, in memory while small, from an owner-only file once the compressed bytes outgrow the
 * bound, which closing deletes; a wrong size or broken bytes are refused.
 */
class CompressedSpoolTest {
  @TempDir Path directory;

  private static byte[] compressible(int size) {
    byte[] line =
        "{\"index_key\":1,\"attributes\":{\"id\":\"i-1\"}},\n".getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[size];
    for (int i = 0; i < size; i++) {
      out[i] = line[i % line.length];
    }
    return out;
  }

  private static byte[] random(int size) {
    byte[] out = new byte[size];
    new Random(42).nextBytes(out);
    return out;
  }

  /** Writes {@code body} in pieces of {@code piece} bytes, as the receiver does. */
  private static void write(CompressedSpool spool, byte[] body, int piece) throws IOException {
    OutputStream out = spool.output();
    for (int at = 0; at < body.length; at += piece) {
      out.write(body, at, Math.min(piece, body.length - at));
    }
  }

  private static byte[] readBack(CompressedSpool spool) throws IOException {
    try (InputStream in = CompressedContent.decompressing(spool.open())) {
      return in.readAllBytes();
    }
  }

  private long filesIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.count();
    }
  }

  @Test
  void aCompressibleDocumentStaysInMemoryAndComesBackByteForByte() throws Exception {
    byte[] body = compressible(3 << 20);
    try (CompressedSpool spool = new CompressedSpool(directory, 64 * 1024)) {
      write(spool, body, 64 * 1024);
      spool.finish();

      assertThat(spool.spilled()).as("3 MiB of repeated lines fit in 64 KiB compressed").isFalse();
      assertThat(spool.length()).isLessThan(64 * 1024);
      assertThat(filesIn(directory)).isZero();
      assertThat(readBack(spool)).isEqualTo(body);
      try (InputStream in = spool.open()) {
        assertThat(CompressedContent.decompress(in.readAllBytes(), body.length)).isEqualTo(body);
      }
    }
  }

  @Test
  void compressedBytesOverTheBoundGoToAFileThatClosingDeletes() throws Exception {
    byte[] body = random(1 << 20);
    Path file;
    try (CompressedSpool spool = new CompressedSpool(directory, 64 * 1024)) {
      write(spool, body, 8 * 1024);
      spool.finish();

      assertThat(spool.spilled()).isTrue();
      try (Stream<Path> files = Files.list(directory)) {
        file = files.findFirst().orElseThrow();
      }
      assertThat(Files.size(file)).as("the whole compressed stream").isEqualTo(spool.length());
      assertThat(Files.getPosixFilePermissions(file).toString())
          .as("owner-only")
          .isEqualTo("[OWNER_READ, OWNER_WRITE]");
      assertThat(readBack(spool)).isEqualTo(body);
    }
    assertThat(file).doesNotExist();
  }

  @Test
  void anAbandonedSpoolLeavesNoFile() throws Exception {
    try (CompressedSpool spool = new CompressedSpool(directory, 1024)) {
      write(spool, random(256 * 1024), 4096);
      assertThat(filesIn(directory)).isEqualTo(1);
      assertThatThrownBy(spool::length).isInstanceOf(IllegalStateException.class);
    }
    assertThat(filesIn(directory)).isZero();
  }

  @Test
  void nothingCanBeWrittenOnceFinished() throws Exception {
    try (CompressedSpool spool = new CompressedSpool(directory, 1024)) {
      spool.output().write(new byte[] {'{', '}'});
      spool.finish();
      assertThatThrownBy(() -> spool.output().write('x')).isInstanceOf(IOException.class);
      assertThat(readBack(spool)).isEqualTo(new byte[] {'{', '}'});
    }
  }

  @Test
  void contentOfAnotherSizeOrBrokenBytesAreRefused() throws Exception {
    byte[] body = compressible(100_000);
    byte[] compressed;
    try (CompressedSpool spool = new CompressedSpool(directory, 1 << 20)) {
      write(spool, body, 4096);
      spool.finish();
      try (InputStream in = spool.open()) {
        compressed = in.readAllBytes();
      }
    }

    assertThatThrownBy(() -> CompressedContent.decompress(compressed, body.length + 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not the document's " + (body.length + 1));
    assertThatThrownBy(() -> CompressedContent.decompress(compressed, body.length - 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("more than");
    byte[] cut = Arrays.copyOf(compressed, compressed.length / 2);
    assertThatThrownBy(() -> CompressedContent.decompress(cut, body.length))
        .isInstanceOf(IOException.class);
  }
}
