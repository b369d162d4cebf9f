package dev.stagecraft.planner.service.config;

import dev.stagecraft.planner.service.config.ConfigurationContent.InvalidArchive;
import dev.stagecraft.planner.service.config.ConfigurationContent.TooLarge;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/**
 * Reads a configuration upload, a gzip-compressed tar archive, within its limits, counting while it
 * reads (docs/runs.md "Limits", ADR 0061): every byte the gzip stream yields (headers, GNU long
 * names, pax headers, file data, padding) counts against {@link #MAX_UNPACKED_BYTES}, each entry
 * against {@link #MAX_ENTRIES}, each long name or pax header against {@link #MAX_METADATA_BYTES},
 * and every file's declared size against {@link ConfigurationContent#MAX_TOTAL_BYTES} before its
 * data is read. So a small archive that would unpack to gigabytes (a "tar.gz bomb") is refused
 * after at most the limit was unpacked, never inflated in full. Not thread-safe; one per archive.
 */
final class TarGzReader {
  /** The most bytes an archive may unpack to, tar headers and metadata included. */
  static final long MAX_UNPACKED_BYTES = 16L << 20;

  /** The most entries (files, directories, long names, pax headers) an archive may hold. */
  static final int MAX_ENTRIES = 10_000;

  /** The most bytes of one GNU long name or pax header. */
  static final int MAX_METADATA_BYTES = 64 << 10;

  private static final int BLOCK = 512;

  private final Map<String, String> files = new TreeMap<>();
  private final Map<String, byte[]> support = new TreeMap<>();
  private long fileBytes;
  private int entries;
  private String longName;
  private String paxPath;
  private Long paxSize;

  private TarGzReader() {}

  /**
   * @throws TooLarge when a limit is exceeded (the message names it)
   * @throws InvalidArchive when the data is not a tar.gz, or holds links or special files
   */
  static ConfigurationContent read(InputStream in) {
    TarGzReader reader = new TarGzReader();
    try (InputStream tar = new Unpacked(new GZIPInputStream(in))) {
      while (reader.entry(tar)) {
        // one entry per round
      }
    } catch (IOException | NumberFormatException e) {
      throw new InvalidArchive(
          "The upload is not a gzip-compressed tar archive ("
              + e.getMessage()
              + "): create it with 'tar czf config.tar.gz -C DIR .'.");
    }
    if (reader.files.isEmpty()) {
      throw new InvalidArchive(
          "The archive has no configuration files (*.tf or *.tf.json at its top level).");
    }
    return new ConfigurationContent(reader.files, reader.support);
  }

  /** Reads one entry; false at the end of the archive. */
  private boolean entry(InputStream tar) throws IOException {
    byte[] header = tar.readNBytes(BLOCK);
    if (header.length < BLOCK) {
      throw new InvalidArchive("The archive ends in the middle of a tar header: upload it again.");
    }
    if (isZero(header)) {
      return false;
    }
    if (++entries > MAX_ENTRIES) {
      throw new TooLarge(
          "The archive holds more than "
              + MAX_ENTRIES
              + " entries, the limit per upload: upload only the configuration directory.");
    }
    String name = text(header, 0, 100);
    String prefix = text(header, 345, 155);
    char type = (char) header[156];
    long size = size(header);
    switch (type) {
      case 'L' -> longName = metadata(tar, size, name).replace("\0", "");
      case 'x' -> pax(metadata(tar, size, name));
      case 'g' -> metadata(tar, size, name); // global pax settings: nothing we keep
      case '5' -> skip(tar, size);
      case '0', '\0', '7' -> file(tar, path(name, prefix), paxSize != null ? paxSize : size);
      default ->
          throw new InvalidArchive(
              "'"
                  + name
                  + "' in the archive is a link or special file (tar type '"
                  + type
                  + "'): only regular files and directories are accepted.");
    }
    return true;
  }

  private String path(String name, String prefix) {
    String path =
        paxPath != null
            ? paxPath
            : longName != null ? longName : prefix.isEmpty() ? name : prefix + "/" + name;
    while (path.startsWith("./")) {
      path = path.substring(2);
    }
    return path;
  }

  private void file(InputStream tar, String path, long size) throws IOException {
    longName = null;
    paxPath = null;
    paxSize = null;
    fileBytes += size;
    if (size < 0 || fileBytes > ConfigurationContent.MAX_TOTAL_BYTES) {
      // refused from the header, before the data is read
      throw new TooLarge(
          "The archive holds more than "
              + (ConfigurationContent.MAX_TOTAL_BYTES >> 20)
              + " MiB of files (reached at '"
              + path
              + "'), the limit per upload: upload only the configuration directory.");
    }
    byte[] data = tar.readNBytes((int) size);
    if (data.length < size) {
      throw new InvalidArchive("The archive is truncated (in '" + path + "'): upload it again.");
    }
    tar.skipNBytes(padding(size));
    if (ConfigurationContent.isConfigurationFile(path)) {
      files.put(path, new String(data, StandardCharsets.UTF_8));
    } else {
      support.put(path, data);
    }
  }

  /** The data of a long name or pax header, within {@link #MAX_METADATA_BYTES}. */
  private static String metadata(InputStream tar, long size, String name) throws IOException {
    if (size < 0 || size > MAX_METADATA_BYTES) {
      throw new TooLarge(
          "The archive has a long name or pax header ('"
              + name
              + "') of "
              + size
              + " bytes, above the limit of "
              + MAX_METADATA_BYTES
              + " bytes.");
    }
    byte[] data = tar.readNBytes((int) size);
    if (data.length < size) {
      throw new InvalidArchive("The archive is truncated (in '" + name + "'): upload it again.");
    }
    tar.skipNBytes(padding(size));
    return new String(data, StandardCharsets.UTF_8);
  }

  /** pax extended header records ({@code "<length> <key>=<value>\n"}): path and size are used. */
  private void pax(String records) {
    int at = 0;
    while (at < records.length()) {
      int space = records.indexOf(' ', at);
      int length = space < 0 ? -1 : Integer.parseInt(records.substring(at, space));
      if (length <= 0 || at + length > records.length()) {
        throw new InvalidArchive("The archive has a malformed pax header: create it again.");
      }
      String record = records.substring(space + 1, at + length - 1);
      int eq = record.indexOf('=');
      String key = eq < 0 ? record : record.substring(0, eq);
      String value = eq < 0 ? "" : record.substring(eq + 1);
      if (key.equals("path")) {
        paxPath = value;
      } else if (key.equals("size")) {
        paxSize = Long.parseLong(value);
      }
      at += length;
    }
  }

  private static void skip(InputStream tar, long size) throws IOException {
    if (size < 0 || size > MAX_UNPACKED_BYTES) {
      throw new TooLarge(
          "An entry of the archive claims "
              + size
              + " bytes, above the limit of "
              + (MAX_UNPACKED_BYTES >> 20)
              + " MiB per upload.");
    }
    tar.skipNBytes(size + padding(size));
  }

  private static long padding(long size) {
    return (BLOCK - size % BLOCK) % BLOCK;
  }

  /** The size field: octal digits, or GNU's base-256 form (first byte's high bit set). */
  private static long size(byte[] header) {
    if ((header[124] & 0x80) != 0) {
      long n = header[124] & 0x7f;
      for (int i = 125; i < 136; i++) {
        if (n > (Long.MAX_VALUE >> 8)) {
          return -1;
        }
        n = (n << 8) | (header[i] & 0xff);
      }
      return n;
    }
    String octal = text(header, 124, 12).trim();
    return octal.isEmpty() ? 0 : Long.parseLong(octal, 8);
  }

  private static boolean isZero(byte[] block) {
    for (byte b : block) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static String text(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.UTF_8);
  }

  /**
   * The unpacked stream, counted as it is read: reading past {@link #MAX_UNPACKED_BYTES} is refused
   * before more is inflated.
   */
  private static final class Unpacked extends FilterInputStream {
    private long count;

    Unpacked(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (count >= MAX_UNPACKED_BYTES) {
        throw new TooLarge(
            "The archive unpacks to more than "
                + (MAX_UNPACKED_BYTES >> 20)
                + " MiB (tar headers, names and files), the limit per upload: upload only the"
                + " configuration directory.");
      }
      int n = super.read(b, off, (int) Math.min(len, MAX_UNPACKED_BYTES - count));
      if (n > 0) {
        count += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      // skipping inflates too: read, so that it is counted
      byte[] buffer = new byte[(int) Math.min(n, 8192)];
      long skipped = 0;
      while (skipped < n) {
        int r = read(buffer, 0, (int) Math.min(buffer.length, n - skipped));
        if (r < 0) {
          break;
        }
        skipped += r;
      }
      return skipped;
    }
  }
}
