package dev.stagecraft.planner.service.config;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The files of one configuration version, and its content address.
 *
 * <p>The id is {@code cv-} followed by the SHA-256 (hex) of the canonical file map: every file
 * (configuration and supporting files alike), sorted by path (UTF-16 order of {@link String}), each
 * as the UTF-8 path, a NUL byte, the content's length in decimal, a NUL byte and the content. The
 * same files always give the same id, whichever way they were uploaded.
 *
 * @param files the configuration files ({@code *.tf}, {@code *.tf.json}): name → text
 * @param supportFiles every other file: relative path → bytes
 */
public record ConfigurationContent(Map<String, String> files, Map<String, byte[]> supportFiles) {

  /** The most bytes the files of a tar.gz upload may hold together (uncompressed). */
  public static final long MAX_TOTAL_BYTES = 10L << 20;

  public ConfigurationContent {
    files = Map.copyOf(files);
    supportFiles = Map.copyOf(supportFiles);
  }

  /** An upload that cannot be a configuration; the message says what and how to fix it. */
  public static class InvalidArchive extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidArchive(String message) {
      super(message);
    }
  }

  /** An upload over one of the limits; the message names the limit. */
  public static final class TooLarge extends InvalidArchive {
    private static final long serialVersionUID = 1L;

    public TooLarge(String message) {
      super(message);
    }
  }

  /** The content address ({@code cv-<sha256 hex>}). */
  public String id() {
    TreeMap<String, byte[]> all = new TreeMap<>();
    files.forEach((k, v) -> all.put(k, v.getBytes(StandardCharsets.UTF_8)));
    all.putAll(supportFiles);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      all.forEach(
          (path, content) -> {
            sha.update(path.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(Integer.toString(content.length).getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(content);
          });
      return "cv-" + HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /** The supporting files as the API sends them (relative path → base64). */
  public Map<String, String> supportFilesBase64() {
    TreeMap<String, String> out = new TreeMap<>();
    supportFiles.forEach((k, v) -> out.put(k, Base64.getEncoder().encodeToString(v)));
    return out;
  }

  /** Total size of all files in bytes. */
  public long sizeBytes() {
    long total = 0;
    for (String f : files.values()) {
      total += f.getBytes(StandardCharsets.UTF_8).length;
    }
    for (byte[] b : supportFiles.values()) {
      total += b.length;
    }
    return total;
  }

  /** Whether {@code path} names a configuration file (read by the planner) rather than data. */
  public static boolean isConfigurationFile(String path) {
    return !path.contains("/") && (path.endsWith(".tf") || path.endsWith(".tf.json"));
  }

  /**
   * Reads a gzip-compressed tar archive (ustar/pax/GNU as {@code tar czf} writes it): regular files
   * only; directories are implied; top-level {@code *.tf} / {@code *.tf.json} become configuration
   * files, everything else supporting files. A leading {@code ./} is dropped. Read within the
   * limits of {@link TarGzReader}, counted while it is read.
   *
   * @throws TooLarge when the archive exceeds a limit (the message names it)
   * @throws InvalidArchive when the data is not a tar.gz or holds links
   */
  public static ConfigurationContent fromTarGz(InputStream in) {
    return TarGzReader.read(in);
  }
}
