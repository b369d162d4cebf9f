package dev.stagecraft.planner.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A configuration upload is counted while it is read (docs/runs.md "Limits"): a tar.gz bomb is
 * refused after at most the limit was unpacked, and GNU long names, pax headers and entries count
 * too. Each archive here is streamed through gzip as it is made, so not even the test holds it
 * unpacked.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ArchiveLimitsTest {
  static final long GIB = 1L << 30;
  static final byte[] MAIN =
      "resource \"stateful_provisioning\" \"a\" { state_key = \"1\" }\n"
          .getBytes(StandardCharsets.UTF_8);

  /** Writes tar entries into a gzip stream; data of any size is written as zeros, in chunks. */
  static final class StreamedTar implements AutoCloseable {
    final ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    final OutputStream out;

    StreamedTar() throws IOException {
      out =
          new GZIPOutputStream(compressed, 1 << 16) {
            {
              def.setLevel(Deflater.BEST_SPEED);
            }
          };
    }

    StreamedTar entry(String name, char type, byte[] data) throws IOException {
      header(name, type, data.length);
      out.write(data);
      out.write(new byte[(int) ((512 - data.length % 512) % 512)]);
      return this;
    }

    StreamedTar zeros(String name, char type, long size) throws IOException {
      header(name, type, size);
      byte[] chunk = new byte[1 << 20];
      for (long left = size; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
      out.write(new byte[(int) ((512 - size % 512) % 512)]);
      return this;
    }

    private void header(String name, char type, long size) throws IOException {
      byte[] header = new byte[512];
      put(header, 0, name);
      put(header, 100, "0000644");
      put(header, 124, String.format("%011o", size));
      header[156] = (byte) type;
      put(header, 257, "ustar");
      out.write(header);
    }

    private static void put(byte[] header, int offset, String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      System.arraycopy(b, 0, header, offset, Math.min(b.length, 100));
    }

    byte[] finish() throws IOException {
      out.write(new byte[1024]);
      out.close();
      return compressed.toByteArray();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /** Counts the compressed bytes the reader took. */
  static final class Counted extends FilterInputStream {
    long read;

    Counted(byte[] data) {
      super(new ByteArrayInputStream(data));
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      read += Math.max(n, 0);
      return n;
    }
  }

  static void assertRefusedEarly(byte[] archive, String... messageParts) {
    Counted in = new Counted(archive);
    assertThatThrownBy(() -> ConfigurationContent.fromTarGz(in))
        .isInstanceOf(ConfigurationContent.TooLarge.class)
        .hasMessageContainingAll(messageParts);
    // far from all of it was inflated: about a tenth of the compressed bytes at most
    assertThat(in.read).isLessThan(archive.length / 10 + 70_000);
  }

  @Test
  void aTarGzBombOfOneGibibyteOfZerosIsRefusedFromItsHeader() throws IOException {
    byte[] bomb;
    try (StreamedTar tar = new StreamedTar()) {
      bomb = tar.entry("main.tf", '0', MAIN).zeros("zeros.bin", '0', GIB).finish();
    }
    assertThat(bomb.length).isLessThan(8 << 20); // a megabyte or so that unpacks to a gibibyte
    assertRefusedEarly(bomb, "more than 10 MiB of files", "zeros.bin");
  }

  @Test
  void manyFilesAddUpToTheLimit() throws IOException {
    byte[] archive;
    try (StreamedTar tar = new StreamedTar()) {
      tar.entry("main.tf", '0', MAIN);
      for (int i = 0; i < 100; i++) {
        tar.zeros("data/" + i + ".bin", '0', 1 << 20);
      }
      archive = tar.finish();
    }
    assertRefusedEarly(archive, "more than 10 MiB of files", "data/9.bin");
  }

  @Test
  void aGnuLongNameOrPaxHeaderOfAGibibyteIsRefusedAtItsLimit() throws IOException {
    byte[] longName;
    try (StreamedTar tar = new StreamedTar()) {
      longName = tar.zeros("././@LongLink", 'L', GIB).entry("main.tf", '0', MAIN).finish();
    }
    assertRefusedEarly(longName, "long name or pax header", "above the limit of 65536 bytes");
    byte[] pax;
    try (StreamedTar tar = new StreamedTar()) {
      pax = tar.zeros("PaxHeaders/main.tf", 'x', GIB).entry("main.tf", '0', MAIN).finish();
    }
    assertRefusedEarly(pax, "long name or pax header", "above the limit of 65536 bytes");
  }

  @Test
  void metadataAndDirectoriesCountTowardsWhatIsUnpacked() throws IOException {
    byte[] directory;
    try (StreamedTar tar = new StreamedTar()) {
      directory = tar.entry("main.tf", '0', MAIN).zeros("dir/", '5', GIB).finish();
    }
    assertRefusedEarly(directory, "above the limit of 16 MiB");
    byte[] names;
    try (StreamedTar tar = new StreamedTar()) {
      tar.entry("main.tf", '0', MAIN);
      byte[] name = new byte[60_000];
      java.util.Arrays.fill(name, (byte) 'n');
      for (int i = 0; i < 400; i++) {
        tar.entry("././@LongLink", 'L', name).entry("f" + i, '0', new byte[0]);
      }
      names = tar.finish();
    }
    assertThatThrownBy(() -> ConfigurationContent.fromTarGz(new ByteArrayInputStream(names)))
        .isInstanceOf(ConfigurationContent.TooLarge.class)
        .hasMessageContaining("unpacks to more than 16 MiB");
  }

  @Test
  void entriesAreCounted() throws IOException {
    byte[] archive;
    try (StreamedTar tar = new StreamedTar()) {
      tar.entry("main.tf", '0', MAIN);
      for (int i = 0; i < 10_001; i++) {
        tar.entry("d" + i + "/", '5', new byte[0]);
      }
      archive = tar.finish();
    }
    assertThatThrownBy(() -> ConfigurationContent.fromTarGz(new ByteArrayInputStream(archive)))
        .isInstanceOf(ConfigurationContent.TooLarge.class)
        .hasMessageContaining("more than 10000 entries");
  }

  @Test
  void longNamesAndPaxPathsNameTheFilesThatFollow() throws IOException {
    String deep = "modules/" + "very-long-directory-name/".repeat(6) + "script.sh";
    byte[] archive;
    try (StreamedTar tar = new StreamedTar()) {
      String record = " path=" + deep + "\n";
      int length = record.length() + 3;
      tar.entry("main.tf", '0', MAIN)
          .entry("PaxHeaders/x", 'x', (length + record).getBytes(StandardCharsets.UTF_8))
          .entry("truncated-by-ustar", '0', "echo pax\n".getBytes(StandardCharsets.UTF_8))
          .entry("././@LongLink", 'L', ("gnu/" + deep + "\0").getBytes(StandardCharsets.UTF_8))
          .entry("truncated-too", '0', "echo gnu\n".getBytes(StandardCharsets.UTF_8));
      archive = tar.finish();
    }
    ConfigurationContent content =
        ConfigurationContent.fromTarGz(new ByteArrayInputStream(archive));
    assertThat(content.supportFiles()).containsOnlyKeys(deep, "gnu/" + deep);
  }
}
