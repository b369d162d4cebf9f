package dev.stagecraft.planner.service.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The files a configuration was uploaded with, written to a fresh private directory for the time of
 * one plan or run, so that {@code file()}, {@code filemd5()}, {@code templatefile()} and
 * provisioner {@code script}/{@code source}/{@code key_file} find them. Planning is confined to
 * that directory; each plan or run gets its own, below a per-tenant parent, and it is deleted when
 * the plan or run ends.
 */
public final class UploadedFiles {
  /** The most a single supporting file may hold (the CLI refuses larger ones already). */
  public static final long MAX_FILE_BYTES = 1L << 20;

  /** The most all supporting files of one request may hold together. */
  public static final long MAX_TOTAL_BYTES = 10L << 20;

  private final Path root;

  /**
   * @param root the directory below which each tenant gets a parent for its plans' and runs'
   *     directories (created on demand, owner-only)
   */
  public UploadedFiles(Path root) {
    this.root = root;
  }

  /** Under the JVM's temporary directory. */
  public static UploadedFiles inTempDirectory() {
    return new UploadedFiles(Path.of(System.getProperty("java.io.tmpdir"), "stagecraft-planner"));
  }

  public Path root() {
    return root;
  }

  /** The most files (configuration and supporting) one request may send. */
  public static final int MAX_FILES = 10_000;

  /** A request's files that cannot be written safely; the message says which and why. */
  public static class InvalidUpload extends IllegalArgumentException {
    public InvalidUpload(String message) {
      super(message);
    }
  }

  /** A request's files over one of the limits; the message names the limit. */
  public static final class TooLarge extends InvalidUpload {
    public TooLarge(String message) {
      super(message);
    }
  }

  /**
   * Decodes the supporting files of a request (relative path → base64 content) and checks every
   * path of them and of the configuration files.
   *
   * @throws InvalidUpload for an absolute path, a {@code ..} segment, a file named twice, content
   *     that is not base64
   * @throws TooLarge over the limits: {@value #MAX_FILES} files, 1 MiB per supporting file, 10 MiB
   *     of supporting files and 10 MiB of configuration files (checked before anything is decoded)
   */
  public static Map<String, byte[]> decode(
      Map<String, String> configFiles, Map<String, String> supportFiles) {
    configFiles.keySet().forEach(UploadedFiles::checkPath);
    int count = configFiles.size() + (supportFiles == null ? 0 : supportFiles.size());
    if (count > MAX_FILES) {
      throw new TooLarge(
          "The request has "
              + count
              + " files, above the limit of "
              + MAX_FILES
              + " per configuration.");
    }
    long configBytes = 0;
    for (String text : configFiles.values()) {
      configBytes += text == null ? 0 : text.length();
    }
    if (configBytes > MAX_TOTAL_BYTES) {
      throw new TooLarge(
          "The configuration files hold more than 10 MiB of text, the limit per configuration.");
    }
    Map<String, byte[]> out = new LinkedHashMap<>();
    if (supportFiles == null) {
      return out;
    }
    long total = 0;
    for (Map.Entry<String, String> e : supportFiles.entrySet()) {
      String path = e.getKey();
      checkPath(path);
      if (configFiles.containsKey(path)) {
        throw new InvalidUpload(
            "\"" + path + "\" is sent both as a configuration file and as a supporting file.");
      }
      String encoded = e.getValue() == null ? "" : e.getValue();
      if (encoded.length() / 4L * 3 > MAX_FILE_BYTES + 2) {
        // refused from its length, before it is decoded
        throw new TooLarge(
            "The supporting file \"" + path + "\" is larger than the limit of 1 MiB per file.");
      }
      byte[] content;
      try {
        content = Base64.getDecoder().decode(encoded);
      } catch (IllegalArgumentException notBase64) {
        throw new InvalidUpload(
            "The content of the supporting file \"" + path + "\" is not base64.");
      }
      if (content.length > MAX_FILE_BYTES) {
        throw new TooLarge(
            "The supporting file \"" + path + "\" is larger than the limit of 1 MiB per file.");
      }
      total += content.length;
      if (total > MAX_TOTAL_BYTES) {
        throw new TooLarge(
            "The supporting files are larger than the limit of 10 MiB in total (reached at \""
                + path
                + "\").");
      }
      out.put(path, content);
    }
    return out;
  }

  /** A relative path of plain segments: not absolute, no {@code .}/{@code ..}, no empty ones. */
  static void checkPath(String path) {
    if (path == null || path.isEmpty()) {
      throw new InvalidUpload("A file of the request has an empty name.");
    }
    if (path.startsWith("/") || path.startsWith("\\") || path.matches("^[A-Za-z]:.*")) {
      throw new InvalidUpload(
          "\"" + path + "\" is an absolute path; files must be relative to the configuration.");
    }
    for (String segment : path.split("[/\\\\]", -1)) {
      if (segment.equals("..") || segment.equals(".") || segment.isEmpty()) {
        throw new InvalidUpload(
            "\""
                + path
                + "\" is not a plain relative path (it has an empty, '.' or '..' segment).");
      }
    }
    if (path.indexOf('\0') >= 0) {
      throw new InvalidUpload("\"" + path.replace('\0', '?') + "\" is not a valid file name.");
    }
  }

  /**
   * Writes the configuration and supporting files into a fresh owner-only directory below the
   * tenant's parent and returns it; the caller deletes it with {@link #delete(Path)}.
   *
   * @throws InvalidUpload when the paths cannot all be written (a file where another needs a
   *     directory)
   */
  public Path materialise(
      String tenant, Map<String, String> configFiles, Map<String, byte[]> supportFiles) {
    configFiles.keySet().forEach(UploadedFiles::checkPath);
    supportFiles.keySet().forEach(UploadedFiles::checkPath);
    Path dir;
    try {
      Path parent = root.resolve(safeName(tenant));
      Files.createDirectories(parent);
      ownerOnly(root);
      ownerOnly(parent);
      dir = Files.createTempDirectory(parent, "config-");
      ownerOnly(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the uploaded files", e);
    }
    try {
      for (Map.Entry<String, String> e : configFiles.entrySet()) {
        write(dir, e.getKey(), e.getValue().getBytes(StandardCharsets.UTF_8));
      }
      for (Map.Entry<String, byte[]> e : supportFiles.entrySet()) {
        write(dir, e.getKey(), e.getValue());
      }
      return dir;
    } catch (RuntimeException e) {
      delete(dir);
      throw e;
    }
  }

  private static void write(Path dir, String relative, byte[] content) {
    Path target;
    try {
      target = dir.resolve(relative).normalize();
    } catch (InvalidPathException e) {
      throw new InvalidUpload("\"" + relative + "\" is not a valid file name.");
    }
    if (!target.startsWith(dir) || target.equals(dir)) {
      throw new InvalidUpload("\"" + relative + "\" is outside the configuration directory.");
    }
    try {
      Files.createDirectories(target.getParent());
      if (!target.getParent().toRealPath().startsWith(dir.toRealPath())) {
        throw new InvalidUpload("\"" + relative + "\" is outside the configuration directory.");
      }
      Files.write(target, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    } catch (FileAlreadyExistsException | NotDirectoryException e) {
      throw new InvalidUpload(
          "\"" + relative + "\" cannot be written: another file of the request is in the way.");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the uploaded file " + relative, e);
    }
  }

  /** Deletes a directory made by {@link #materialise}; logs nothing, never throws. */
  public static void delete(Path dir) {
    if (dir == null || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // best effort: the next attempt (or the temp cleaner) removes the rest
        }
      }
    } catch (IOException | UncheckedIOException ignored) {
      // already gone
    }
  }

  private static String safeName(String tenant) {
    String name = tenant == null ? "_" : tenant.replaceAll("[^A-Za-z0-9_-]", "_");
    return name.isEmpty() ? "_" : name;
  }

  private static void ownerOnly(Path dir) throws IOException {
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: keep the default permissions
    }
  }
}
