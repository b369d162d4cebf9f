package dev.stagecraft.planner.service.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

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

  /** A tar.gz upload larger than this (uncompressed) is refused. */
  public static final long MAX_TOTAL_BYTES = 10L << 20;

  public ConfigurationContent {
    files = Map.copyOf(files);
    supportFiles = Map.copyOf(supportFiles);
  }

  /** An upload that cannot be a configuration; the message says what and how to fix it. */
  public static final class InvalidArchive extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidArchive(String message) {
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
   * Reads a gzip-compressed tar archive (ustar/pax as {@code tar czf} writes it): regular files
   * only; directories are implied; top-level {@code *.tf} / {@code *.tf.json} become configuration
   * files, everything else supporting files. A leading {@code ./} is dropped.
   *
   * @throws InvalidArchive when the data is not a tar.gz, holds links or is too large
   */
  public static ConfigurationContent fromTarGz(InputStream in) {
    Map<String, String> files = new TreeMap<>();
    Map<String, byte[]> support = new TreeMap<>();
    long total = 0;
    try (InputStream tar = new GZIPInputStream(in)) {
      String longName = null;
      while (true) {
        byte[] header = tar.readNBytes(512);
        if (header.length < 512) {
          throw new InvalidArchive(
              "The archive ends in the middle of a tar header: upload it again.");
        }
        if (isZero(header)) {
          break;
        }
        String name = text(header, 0, 100);
        String prefix = text(header, 345, 155);
        long size =
            Long.parseLong(
                text(header, 124, 12).trim().isEmpty() ? "0" : text(header, 124, 12).trim(), 8);
        char type = (char) header[156];
        byte[] data = tar.readNBytes((int) Math.min(size, Integer.MAX_VALUE));
        if (data.length < size) {
          throw new InvalidArchive(
              "The archive is truncated (in '" + name + "'): upload it again.");
        }
        tar.skipNBytes((512 - size % 512) % 512);
        switch (type) {
          case 'L' -> longName = new String(data, StandardCharsets.UTF_8).replace("\0", "");
          case 'x', 'g', '5' -> {
            // pax headers and directories carry nothing we keep
          }
          case '0', '\0', '7' -> {
            String path =
                longName != null ? longName : prefix.isEmpty() ? name : prefix + "/" + name;
            longName = null;
            while (path.startsWith("./")) {
              path = path.substring(2);
            }
            total += size;
            if (total > MAX_TOTAL_BYTES) {
              throw new InvalidArchive(
                  "The archive holds more than "
                      + (MAX_TOTAL_BYTES >> 20)
                      + " MiB of files: upload only the configuration directory.");
            }
            if (isConfigurationFile(path)) {
              files.put(path, new String(data, StandardCharsets.UTF_8));
            } else {
              support.put(path, data);
            }
          }
          default ->
              throw new InvalidArchive(
                  "'"
                      + name
                      + "' in the archive is a link or special file (tar type '"
                      + type
                      + "'): only regular files and directories are accepted.");
        }
      }
    } catch (IOException | NumberFormatException e) {
      throw new InvalidArchive(
          "The upload is not a gzip-compressed tar archive ("
              + e.getMessage()
              + "): create it with 'tar czf config.tar.gz -C DIR .'.");
    }
    if (files.isEmpty()) {
      throw new InvalidArchive(
          "The archive has no configuration files (*.tf or *.tf.json at its top level).");
    }
    return new ConfigurationContent(files, support);
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
}
